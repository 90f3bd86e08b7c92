import { defineConfig } from 'vite';
import armature from 'armature/vite';

// The plugin serves what the page's boot() needs in `vite` (dev) and emits it into the build, where
// `vite preview` (or any static host sending the two isolation headers) serves it.
export default defineConfig({
  plugins: [armature()],
  build: { target: 'es2022' },
});
