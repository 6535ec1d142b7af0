import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Checkpoint } from './events.js';

/** A checkpoint in a file holding the seq: written to a temporary file, then renamed over it, so it is never half written. */
export function fileCheckpoint(path: string): Checkpoint {
  return {
    async load() {
      const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (text === undefined || text.trim() === '') return undefined;
      const seq = Number(text.trim());
      if (!Number.isSafeInteger(seq) || seq < 0) throw new Error(`${path} holds no event seq: ${JSON.stringify(text.slice(0, 40))}`);
      return seq;
    },
    async save(seq) {
      const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(temporary, `${seq}\n`);
      await rename(temporary, path);
    },
  };
}
