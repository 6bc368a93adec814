/** A twelve-line file and the answers that show its lines: the read tool's numbered answer and a plain one (sed, cat). */
export const FILE = Array.from({ length: 12 }, (_, i) => `export const value${i} = compute(${i * 7});`);
/** The read tool's answer for lines [from, to] (1-based) of FILE. */
export const readOutput = (from: number, to: number) =>
  `<path>/p/src/a.ts</path>\n<type>file</type>\n<content>\n${FILE.slice(from - 1, to)
    .map((line, i) => `${from + i}: ${line}`)
    .join("\n")}\n\n(Showing lines ${from}-${to} of 12. Use offset=${to + 1} to continue.)\n</content>`;
export const plain = (from: number, to: number) => `${FILE.slice(from - 1, to).join("\n")}\n`;
