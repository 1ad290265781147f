import { defineConfig } from 'vite';

// The build lands in the jar as classpath resources under /spyglass-ui, which `spyglass serve`
// serves at /. `npm run dev` proxies the API to a `spyglass serve` on port 8080.
export default defineConfig({
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'target/classes/spyglass-ui',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
