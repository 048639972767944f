/** esbuild loads .css as text for the webview bundle (see scripts/build.mjs). */
declare module '*.css' {
  const text: string;
  export default text;
}
