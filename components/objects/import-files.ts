/**
 * Files picked for import become one editor text: each file its own `---`
 * document(s), in the order picked, so a save creates them all as one
 * generation and every error names its object and line in that text.
 */
export function joinImportedFiles(files: readonly { name: string; text: string }[]): string {
  return files
    .map((f) => f.text.replace(/^\uFEFF/, '').replace(/^(?:---[ \t]*\r?\n)+/, '').trimEnd())
    .filter((t) => t.trim() !== '')
    .map((t) => `${t}\n`)
    .join('---\n');
}

/** YAML files only: a folder or a zip picked by mistake is refused by name, not read as YAML. */
export function isYamlFile(name: string): boolean {
  return /\.ya?ml$/i.test(name);
}
