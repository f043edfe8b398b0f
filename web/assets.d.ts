// esbuild bundles imported stylesheets into the app's CSS file.
declare module '*.css';
