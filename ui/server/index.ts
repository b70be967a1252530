// The trajectory viewer's server (docs/viewer.md): the gateway mounts it for `serve --ui`, the CLI runs it for `tokentap ui`.
export { registerViewer } from './register-viewer.js';
export { createViewerApp, type ViewerAppOptions } from './create-viewer-app.js';
export { DEFAULT_PAGES_DIR } from './serve-pages.js';
export type { ViewerChangeSource, ViewerOptions, ViewerRemote, ViewerTokenizer } from './viewer-options.js';
export type { ViewerAnswer } from './viewer-worker-protocol.js';
