import type { ViewerTokenizer } from './viewer-options.js';

/** What the log says when the model folder gives the viewer no tokenizer. */
export const UNUSABLE_TOKENIZER_MESSAGE = 'the viewer shows token ids without their text: the model folder has no usable tokenizer';

/**
 * The model folder's tokenizer for the viewer's token texts (`serve --ui --model-dir`), on whichever thread answers
 * the viewer; a folder without a usable one only costs the texts: `onUnusable` hears why, and the answer is undefined.
 *
 * @example const tokenizer = await loadViewerTokenizer(modelDir, (error) => log.warn({ err: error, modelDir }, UNUSABLE_TOKENIZER_MESSAGE));
 */
export async function loadViewerTokenizer(modelDir: string, onUnusable: (error: Error) => void): Promise<ViewerTokenizer | undefined> {
  try {
    const { loadHfTokenizer } = await import('../../model-format/tokenizer/load-hf-tokenizer.js');
    return await loadHfTokenizer(modelDir);
  } catch (error) {
    onUnusable(error instanceof Error ? error : new Error(String(error)));
    return undefined;
  }
}
