import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console: a single-page app the service serves from web/dist at the page routes
 * (`/{locale}/...`; assets under `/assets/`). `npm run dev` proxies the API to the service on
 * :3000 (API_ORIGIN overrides), so the session cookie stays same-origin.
 */
const api = process.env.API_ORIGIN ?? 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, manifest: true },
  server: {
    port: 5173,
    proxy: { '/api': { target: api, changeOrigin: false } },
  },
});
