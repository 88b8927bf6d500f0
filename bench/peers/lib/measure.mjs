// The measuring loop every scenario shares: rounds, the tools' turns
// within a round, warm-ups and timed samples, and the check on each sample.
import { performance } from 'node:perf_hooks';

/** interleave runs each side once, in an order that flips every round. */
export async function interleave(round, sides) {
  const names = Object.keys(sides);
  const out = {};
  for (const k of round % 2 ? names.reverse() : names) out[k] = await sides[k]();
  return out;
}

/** timed runs fn warmup times untimed, then n times timed; fn returns ms or nothing. */
export async function timed(n, warmup, fn) {
  for (let i = 0; i < warmup; i++) await fn();
  const ms = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const own = await fn();
    ms.push(typeof own === 'number' ? own : performance.now() - start);
  }
  return ms;
}

/** expect throws unless ok, naming what the tool got: every sample is checked. */
export function expect(ok, what, got) {
  if (!ok) throw new Error(`${what}; got: ${String(got).slice(0, 500)}`);
}

/** count is how many times re matches s. */
export const count = (s, re) => (s.match(re) || []).length;

/** rounds runs fn(round) ctx.cfg.rounds times and lists what each returned. */
export async function rounds(ctx, fn) {
  const out = [];
  for (let r = 0; r < ctx.cfg.rounds; r++) {
    out.push(await fn(r));
    ctx.log(`  round ${r + 1}/${ctx.cfg.rounds} done`);
  }
  return out;
}
