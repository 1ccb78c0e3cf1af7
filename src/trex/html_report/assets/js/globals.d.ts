// Globals the page's script touches beyond the DOM library (type-checking only: not in the page).
interface Window {
  /** plotly.js, once its inlined source has run (60-figures.js). */
  Plotly?: any;
  /** The page's API for tests and benchmarks (90-app.js). */
  trexReport?: Object;
  /** performance.now() when the first view was drawn. */
  trexReady?: number;
}
interface HTMLElement {
  /** Draws a chart card's figure when it comes into view (60-figures.js). */
  trexDraw?: () => void;
  /** Draws a chart again (after a control changed). */
  redraw?: () => void;
}
