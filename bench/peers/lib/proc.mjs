// Processes: run a command and time it from spawn to exit, and read the
// memory of a process tree from /proc.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * run spawns cmd with args and resolves to { ms, stdout, stderr, code }:
 * ms is the wall time from spawn to exit with its output read, the cost a
 * shell or an agent pays for one command. A non-zero exit rejects, with
 * the command and its output in the message, unless opts.allowFail.
 */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.once('error', (e) => { clearTimeout(timer); reject(new Error(`${cmd}: ${e.message}`)); });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const r = { ms: performance.now() - start, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), code };
      if ((code !== 0 || signal) && !opts.allowFail) {
        reject(new Error(`${[cmd, ...args].join(' ')} exited ${code ?? signal}:\n${r.stdout}${r.stderr}`.slice(0, 4000)));
      } else resolve(r);
    });
  });
}

/** children maps each live pid to its child pids, from /proc/<pid>/stat. */
function childrenMap() {
  const kids = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try { stat = readFileSync(`/proc/${name}/stat`, 'utf8'); } catch { continue; }
    // The command name is in parentheses and may hold spaces: parse after it.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!kids.has(ppid)) kids.set(ppid, []);
    kids.get(ppid).push(Number(name));
  }
  return kids;
}

/** tree is pid and all its descendants. */
export function tree(pid) {
  const kids = childrenMap();
  const all = [];
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop();
    all.push(p);
    todo.push(...(kids.get(p) || []));
  }
  return all;
}

/**
 * pssKB is the proportional set size of pids, summed, in KiB, from
 * /proc/<pid>/smaps_rollup: shared pages count once across the set, so a
 * browser's many processes add up to what the tree really costs. A pid
 * that exited meanwhile counts 0.
 */
export function pssKB(pids) {
  let sum = 0;
  for (const p of pids) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      if (m) sum += Number(m[1]);
    } catch { /* exited */ }
  }
  return sum;
}

/** alive says whether pid still runs. */
export function alive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** waitGone waits until none of pids runs, at most ms. */
export async function waitGone(pids, ms = 15_000) {
  const end = performance.now() + ms;
  while (pids.some(alive)) {
    if (performance.now() > end) throw new Error(`processes ${pids.filter(alive).join(', ')} still run after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
