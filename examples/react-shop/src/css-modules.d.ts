// Types for CSS modules imported by components.
declare module '*.module.css' {
  const classes: Record<string, string>;
  export default classes;
}
