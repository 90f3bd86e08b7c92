// Another process on a data folder, for the watch bench: a bus with this process's journal on it
// (what every booted process keeps), driven by lines on stdin:
//   lat N MS    N python:stdout events, one every MS ms (each says when it was emitted: record.at)
//   burst N     N python:stdout lines as fast as Python's output arrives (100 per tick)
//   quit
// It answers `done` on stdout after each command.
import { createInterface } from 'node:readline';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { openJournal } from '../../src/kernel/journal/journal-writer.ts';

const [dataDir] = process.argv.slice(2);
const bus = createEventBus({ historySize: 0 });
const journal = openJournal({ dataDir: dataDir!, persona: 'bench', command: 'agent', bus });
process.stdout.write(`ready ${journal.info.id}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, a, b] = line.split(' ');
  if (cmd === 'lat') {
    for (let i = 0; i < Number(a); i++) {
      bus.emit('python:stdout', { runId: 'lat', chunk: `lat ${i}\n` });
      await sleep(Number(b));
    }
  } else if (cmd === 'burst') {
    for (let i = 0; i < Number(a); i += 100) {
      for (let j = i; j < Math.min(Number(a), i + 100); j++) bus.emit('python:stdout', { runId: 'burst', chunk: `burst line ${j} ${'x'.repeat(60)}\n` });
      await new Promise((r) => setImmediate(r));
    }
  } else if (cmd === 'quit') break;
  await sleep(50);
  process.stdout.write('done\n');
}
journal.dispose();
process.exit(0);
