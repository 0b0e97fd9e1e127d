export interface FileTime {
  file: string;
  ms: number;
  tests: number;
}
export function slowestFiles(lines: string, root: string, count?: number): FileTime[];
export function slowestFilesReport(path: string, root: string, title: string, count?: number): string;
