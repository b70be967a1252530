import { ByteWriter } from 'hyparquet-writer';
import type { TempOutputFile } from './temp-output-file.js';

/** Bytes kept in memory before they are written out (hyparquet-writer's own fileWriter uses the same 1 MB). */
const FLUSH_BYTES = 1 << 20;

/**
 * hyparquet-writer's ByteWriter that hands its bytes to a TempOutputFile once ~1 MB has gathered, so a Parquet
 * file of any size needs about one row group of memory. Appends go through ensure(), which flushes first.
 *
 * @example
 * const writer = new FileByteWriter(openTempOutputFile('out.parquet', { force: false }));
 * new ParquetWriter({ writer, schema }); // writes PAR1 into the buffer
 */
export class FileByteWriter extends ByteWriter {
  constructor(private readonly file: TempOutputFile) {
    super(FLUSH_BYTES + (FLUSH_BYTES >> 2));
  }

  override ensure(size: number): void {
    if (this.index > FLUSH_BYTES) this.flushToFile();
    super.ensure(size);
  }

  override finish(): void {
    this.flushToFile();
  }

  flushToFile(): void {
    if (this.index === 0) return;
    this.file.write(new Uint8Array(this.buffer, 0, this.index));
    this.index = 0;
  }
}
