import type { RolloutSession } from '../index.js';

/** How to run one agent CLI headless as a rollout: its arguments, environment, and files to write into its HOME. */
export interface HarnessCommand {
  args: string[];
  env: Record<string, string>;
  /** path relative to HOME -> content (e.g. Codex's config.toml) */
  homeFiles: Record<string, string>;
}

export interface HarnessCommandOptions {
  prompt: string;
  /** the model name the agent asks for (tokentap's `--model` can replace it on the way to the backend) */
  model: string;
  /** the agent's HOME (Codex keeps its config there) */
  home: string;
}

/**
 * Claude Code (`claude -p`) in a rollout session: it appends /v1/messages to ANTHROPIC_BASE_URL and sends
 * ANTHROPIC_API_KEY as `x-api-key`, which is the session key. The rest keeps it headless and on this machine
 * (test/harnesses/claude-code.harness.ts, docs/harnesses.md).
 *
 * @example
 * const { args, env } = claudeCodeCommand(session, { prompt: 'Fix the bug', model: 'Qwen/Qwen3-8B', home });
 * spawn('claude', args, { env: { PATH: process.env.PATH, HOME: home, ...env } });
 */
export function claudeCodeCommand(session: RolloutSession, options: HarnessCommandOptions & { smallModel?: string }): HarnessCommand {
  return {
    args: ['-p', options.prompt, '--dangerously-skip-permissions'],
    env: {
      ANTHROPIC_BASE_URL: session.anthropic.baseURL,
      ANTHROPIC_API_KEY: session.apiKey,
      ANTHROPIC_MODEL: options.model,
      ANTHROPIC_SMALL_FAST_MODEL: options.smallModel ?? options.model,
      // Claude Code asks for 32000 output tokens; with its ~18k-token prompt that exceeds a 40960 context
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8192',
      // no telemetry, error reports or update checks: nothing leaves the machine
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      // --dangerously-skip-permissions is refused as root outside a sandbox
      IS_SANDBOX: '1',
    },
    homeFiles: {},
  };
}

/** No update checks, analytics, feedback uploads or plugin syncs (they would leave the machine). */
const CODEX_CONFIG = [
  'check_for_update_on_startup = false',
  '',
  '[analytics]',
  'enabled = false',
  '',
  '[feedback]',
  'enabled = false',
  '',
  '[features]',
  'plugins = false',
  '',
].join('\n');

/**
 * Codex (`codex exec`) in a rollout session: a model provider whose base URL is the session's OpenAI URL, on the
 * Responses wire API, reading its key (the session key, sent as `Authorization: Bearer`) from an env variable
 * (test/harnesses/codex.harness.ts, docs/harnesses.md).
 *
 * @example
 * const { args, env, homeFiles } = codexCommand(session, { prompt: 'Fix the bug', model: 'Qwen/Qwen3-8B', home });
 */
export function codexCommand(session: RolloutSession, options: HarnessCommandOptions): HarnessCommand {
  const provider = `model_providers.tokentap={name="tokentap",base_url="${session.openai.baseURL}",env_key="TOKENTAP_SESSION_KEY",wire_api="responses"}`;
  return {
    args: [
      'exec',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '-c',
      'model_provider=tokentap',
      '-c',
      provider,
      '-m',
      options.model,
      options.prompt,
    ],
    env: { TOKENTAP_SESSION_KEY: session.apiKey, CODEX_HOME: `${options.home}/.codex` },
    homeFiles: { '.codex/config.toml': CODEX_CONFIG },
  };
}
