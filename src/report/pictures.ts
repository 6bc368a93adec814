/**
 * The pictures: the terminal chart (`replay --chart`) and the audit's HTML page. The
 * executable builds them into a file of their own (dist/cli/pictures.mjs, with d3 and
 * asciichart) that it imports when it draws: a replay or an audit table never parses them.
 */
export { terminalChart } from "./chart.js";
export { renderHtmlReport } from "./html.js";
