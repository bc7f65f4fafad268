// Side-effect style imports are bundled by vite.
declare module '*.css';
