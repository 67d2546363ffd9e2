// A small disk for full-disk tests: a tmpfs of `size` bytes, which root on Linux can mount; elsewhere
// (or when the mount is refused) the reason, for the tests to skip with.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type SmallDisk = { mounted: true; dir: string } | { mounted: false; dir: string; why: string };

/** Mounts a tmpfs of `size` bytes on `dir` (created). */
export function mountSmallDisk(dir: string, size: number): SmallDisk {
  fs.mkdirSync(dir, { recursive: true });
  if (process.platform !== 'linux' || process.getuid?.() !== 0)
    return { mounted: false, dir, why: 'needs root on Linux to mount a small tmpfs' };
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return { mounted: true, dir };
  } catch (e) {
    return { mounted: false, dir, why: `mount -t tmpfs failed (${(e as Error).message.split('\n')[0]})` };
  }
}

export function unmountSmallDisk(disk: SmallDisk | undefined): void {
  if (disk?.mounted) execFileSync('umount', [disk.dir]);
}

/** Fills the disk with a file leaving about `free` bytes (tmpfs counts whole pages); returns the file. */
export function fillLeaving(disk: SmallDisk, free: number): string {
  const filler = path.join(disk.dir, 'filler');
  fs.rmSync(filler, { force: true });
  const st = fs.statfsSync(disk.dir);
  const avail = Number(st.bavail) * Number(st.bsize);
  fs.writeFileSync(filler, Buffer.alloc(Math.max(0, avail - free)));
  return filler;
}
