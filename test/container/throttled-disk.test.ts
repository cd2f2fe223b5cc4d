// throttledDisk: how /vm-monitor measures a workspace on another engine (du through exec) without a process in the sandbox every second.
import { afterEach, expect, it, vi } from 'vitest';
import { throttledDisk } from '../../src/container/stats.js';

afterEach(() => void vi.useRealTimers());

const settled = () => new Promise((resolve) => setImmediate(resolve));

it('reads once per window, answers the last figures meanwhile and while it reads again, and keeps them when a reading fails', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const readings: (number | Error)[] = [100, 200, new Error('du failed'), 400];
  let calls = 0;
  const disk = throttledDisk(async () => {
    const next = readings[calls++];
    if (next instanceof Error) throw next;
    return { usedBytes: next ?? 0, limitBytes: 1000 };
  }, 5_000);
  const used = async () => (await disk()).usedBytes;
  // The first reading is awaited; two at once share it.
  expect(await Promise.all([disk(), disk()])).toEqual([{ usedBytes: 100, limitBytes: 1000 }, { usedBytes: 100, limitBytes: 1000 }]);
  vi.advanceTimersByTime(4_000);
  expect(await used()).toBe(100);
  expect(calls).toBe(1);
  // Past the window: the last figures at once, the new reading behind them.
  vi.advanceTimersByTime(2_000);
  expect(await used()).toBe(100);
  await settled();
  expect(await used()).toBe(200);
  expect(calls).toBe(2);
  // A failed reading keeps the last figures and waits its window like any other.
  vi.advanceTimersByTime(6_000);
  expect(await used()).toBe(200);
  await settled();
  expect(await used()).toBe(200);
  expect(calls).toBe(3);
  vi.advanceTimersByTime(6_000);
  expect(await used()).toBe(200);
  await settled();
  expect(await used()).toBe(400);
  expect(calls).toBe(4);
});

it('without figures yet, a failed reading is the answer until its window is over', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  let calls = 0;
  const disk = throttledDisk(async () => {
    calls += 1;
    throw new Error('no such container');
  }, 5_000);
  await expect(disk()).rejects.toThrow('no such container');
  await expect(disk()).rejects.toThrow('no such container');
  expect(calls).toBe(1);
  vi.advanceTimersByTime(5_000);
  await expect(disk()).rejects.toThrow('no such container');
  expect(calls).toBe(2);
});
