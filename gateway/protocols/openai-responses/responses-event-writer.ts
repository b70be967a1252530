import { encodeSseEvent } from '../../../core/sse/encode-sse-event.js';
import type { OutputItem } from './responses-output-items.js';

/**
 * The framing of one Responses stream: each event is `event: <type>` plus `data: {type, sequence_number, ...}`
 * with sequence numbers counting from 0, and output items keep the index they were added at. Events are
 * buffered until `take()`, so one backend chunk becomes one write.
 *
 * @example writer.emit('response.in_progress', { response }); raw.write(writer.take());
 */
export class ResponsesEventWriter {
  /** the output items by output_index (in progress until their `output_item.done`) */
  readonly output: OutputItem[] = [];
  #sequence = 0;
  #pending: string[] = [];

  emit(type: string, fields: Record<string, unknown>): void {
    this.#pending.push(encodeSseEvent({ event: type, data: JSON.stringify({ type, sequence_number: this.#sequence++, ...fields }) }));
  }

  /** Announces an item in progress; its content parts follow as content_part.added (clients append them). */
  addItem(item: OutputItem): number {
    const index = this.output.length;
    this.output.push(item);
    this.emit('response.output_item.added', { output_index: index, item });
    return index;
  }

  doneItem(index: number, item: OutputItem): void {
    this.output[index] = item;
    this.emit('response.output_item.done', { output_index: index, item });
  }

  /** The SSE text of the events emitted since the last take. */
  take(): string {
    const text = this.#pending.join('');
    this.#pending = [];
    return text;
  }
}
