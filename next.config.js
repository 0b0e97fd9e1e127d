// @ts-check
/**
 * Next.js configuration.
 *
 * monaco-yaml's worker imports `monaco-editor/esm/vs/editor/editor.worker.js`;
 * monaco-editor ≥0.56 maps `./*` to `./esm/vs/*` in its exports, so that deep
 * path must be aliased to the exported one (see reference/stack.md §6).
 *
 * @type {import('next').NextConfig}
 */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // PGlite loads its WASM and data files next to its module; keep it (and
  // the other server-only natives) out of the server bundle.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'bcryptjs', 'isomorphic-git'],
  turbopack: {
    resolveAlias: {
      'monaco-editor/esm/vs/editor/editor.worker.js': 'monaco-editor/editor/editor.worker.js',
    },
  },
  // The dev server refuses its own assets when the page is opened by IP.
  allowedDevOrigins: ['127.0.0.1'],
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
