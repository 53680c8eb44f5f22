// The scaling table of bench/native: time and peak memory against input size, with the growth
// fitted, so that a change in how cost grows shows, not only a change in what it is.

/** Least-squares slope and intercept of y against x. */
export function fit(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i += 1) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/** The exponent k of a power law y ~ size^k fitted to the rows (log-log least squares). */
export function exponent(rows, key) {
  return fit(
    rows.map((r) => Math.log(r.mb)),
    rows.map((r) => Math.log(Math.max(r[key], 1e-9))),
  ).slope;
}

/** The marginal MiB of peak RSS per MB of binary (least-squares slope of RSS against size) and the fixed part. */
export function perMb(rows, key) {
  const { slope, intercept } = fit(
    rows.map((r) => r.mb),
    rows.map((r) => r[key]),
  );
  return { slope, intercept };
}

const pad = (value, width, digits = 0) => value.toFixed(digits).padStart(width);

/**
 * Prints the scaling table of `rows` (one per input: mb, and for each contender `<name>Ms`,
 * `<name>Cpu`, `<name>Rss` in ms, ms and MiB) and the fitted growth of every contender.
 * `contenders` names them in column order; the last is the reference the others are divided by.
 */
export function printScaling(rows, contenders) {
  const reference = contenders[contenders.length - 1];
  const header = contenders.map((c) => `${c} wall ms | cpu ms | peak MiB | MiB/MB`).join(' | ');
  console.log(`\nscaling (medians; MiB/MB is peak RSS over size): size MB | ${header} | ratios to ${reference}`);
  for (const r of rows) {
    const cells = contenders.map(
      (c) =>
        `${pad(r[`${c}Ms`], 7)} | ${pad(r[`${c}Cpu`], 6)} | ${pad(r[`${c}Rss`], 8)} | ${pad(r[`${c}Rss`] / r.mb, 6, 1)}`,
    );
    const ratios = contenders
      .slice(0, -1)
      .map(
        (c) =>
          `${c} wall ${(r[`${c}Ms`] / r[`${reference}Ms`]).toFixed(2)}x cpu ${(r[`${c}Cpu`] / r[`${reference}Cpu`]).toFixed(2)}x ` +
          `rss ${(r[`${c}Rss`] / r[`${reference}Rss`]).toFixed(1)}x`,
      );
    console.log(`  ${pad(r.mb, 6, 2)} | ${cells.join(' | ')} | ${ratios.join('; ')} (load ${r.load.toFixed(1)})`);
  }
  if (rows.length < 2) return;
  console.log('  fitted growth (power law over the sizes; 1.00 is linear):');
  for (const c of contenders) {
    const memory = perMb(rows, `${c}Rss`);
    console.log(
      `    ${c.padEnd(9)} wall ~ size^${exponent(rows, `${c}Ms`).toFixed(2)}, cpu ~ size^${exponent(rows, `${c}Cpu`).toFixed(2)}, ` +
        `peak RSS ~ size^${exponent(rows, `${c}Rss`).toFixed(2)}; peak RSS ${memory.intercept.toFixed(0)} MiB + ` +
        `${memory.slope.toFixed(2)} MiB per MB of binary`,
    );
  }
  console.log('  target: at most 3 MiB of peak RSS per MB of binary (the fitted slope)');
}
