// Against the real /proc: a child this process spawns is found among its children, and its memory,
// CPU time and command line read as the child itself reports them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { once } from 'node:events';
import { CLOCK_TICK_MS, childPids, commandLine, cpuTicks, residentBytes, schedTimes } from './linux-proc.ts';

const linux = existsSync('/proc/self/stat');
const schedstat = existsSync('/proc/self/schedstat');

/** The child: fills 64 MiB, burns 200 ms of CPU, reports what it used, then waits to be killed. */
const CHILD = `
const held = Buffer.alloc(64 * 1024 * 1024, 1);
const t0 = process.cpuUsage();
while ((process.cpuUsage(t0).user + process.cpuUsage(t0).system) < 200_000) Math.sqrt(Math.random());
const c = process.cpuUsage();
process.stdout.write(JSON.stringify({ cpuMs: (c.user + c.system) / 1000, held: held.length }) + '\\n');
setInterval(() => held[0]++, 1000);
`;

async function startChild(marker: string): Promise<{ child: ChildProcess; report: { cpuMs: number; held: number } }> {
  const child = spawn(process.execPath, ['-e', CHILD, marker], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  return { child, report: JSON.parse(line) };
}

test('a spawned child is among this process\'s children, with its memory, CPU time and command line', { skip: !linux && 'no /proc here' }, async () => {
  const { child, report } = await startChild('proc-readers-marker');
  try {
    const pid = child.pid!;
    assert.ok(childPids().includes(pid), `${pid} among ${childPids().join(' ')}`);
    assert.ok(!childPids().includes(process.pid), 'not itself');
    assert.deepEqual(childPids(pid), [], 'the child has no children of its own');
    const rss = residentBytes(pid)!;
    assert.ok(rss >= report.held, `resident ${rss} B holds the child's filled ${report.held} B`);
    const ticks = cpuTicks(pid)!;
    assert.ok(Number.isInteger(ticks));
    // Ticks are coarser than the child's own clock, and it kept running since it reported.
    assert.ok(ticks * CLOCK_TICK_MS >= report.cpuMs - 2 * CLOCK_TICK_MS, `${ticks} ticks for the ${report.cpuMs} ms the child says it used`);
    const argv = commandLine(pid)!;
    assert.equal(argv[0], process.execPath);
    assert.equal(argv.at(-1), 'proc-readers-marker');
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  const pid = child.pid!;
  assert.ok(!childPids().includes(pid), 'gone once it exited');
  assert.deepEqual([residentBytes(pid), cpuTicks(pid), commandLine(pid)], [undefined, undefined, undefined]);
});

test('this process reads as itself: its resident memory and CPU time agree with what Node reports', { skip: !linux && 'no /proc here' }, () => {
  const rss = residentBytes(process.pid)!;
  const reported = process.memoryUsage().rss;
  assert.ok(Math.abs(rss - reported) < 0.25 * reported, `/proc says ${rss} B, Node ${reported} B`);
  const ticks = cpuTicks(process.pid)!;
  const c = process.cpuUsage();
  assert.ok(ticks * CLOCK_TICK_MS <= (c.user + c.system) / 1000 + CLOCK_TICK_MS, 'never more than Node has counted');
  assert.ok(ticks > 0);
});

/** A child that only burns 300 ms of CPU, reports it, then waits to be killed. */
const BURNER = `
const t0 = process.cpuUsage();
while ((process.cpuUsage(t0).user + process.cpuUsage(t0).system) < 300_000) Math.sqrt(Math.random());
const c = process.cpuUsage();
process.stdout.write(JSON.stringify({ cpuMs: (c.user + c.system) / 1000 }) + '\\n');
setInterval(() => undefined, 1000);
`;

async function startBurner(): Promise<{ child: ChildProcess; report: { cpuMs: number } }> {
  const child = spawn(process.execPath, ['-e', BURNER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  return { child, report: JSON.parse(line) };
}

test('more busy children than cores: each one\'s time on a core matches its CPU time, and together they waited for a core', { skip: !schedstat && 'no scheduler statistics here' }, async () => {
  // One more CPU-bound child than the machine has cores: some of them must wait while the others run.
  const started = await Promise.all(Array.from({ length: availableParallelism() + 1 }, () => startBurner()));
  try {
    let waited = 0;
    for (const { child, report } of started) {
      const t = schedTimes(child.pid!)!;
      assert.ok(t.runMs >= report.cpuMs * 0.9, `${t.runMs} ms on a core for the ${report.cpuMs} ms of CPU the child says it used`);
      assert.ok(t.runMs <= cpuTicks(child.pid!)! * CLOCK_TICK_MS + 5 * CLOCK_TICK_MS, 'no more than the CPU time /proc/<pid>/stat counts');
      waited += t.waitMs;
    }
    assert.ok(waited > 0, `the ${started.length} children waited ${waited} ms for a core in all`);
  } finally {
    for (const { child } of started) child.kill('SIGKILL');
    await Promise.all(started.map(({ child }) => once(child, 'exit')));
  }
  assert.equal(schedTimes(started[0]!.child.pid!), undefined, 'gone once it exited');
});
