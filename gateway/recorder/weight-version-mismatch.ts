/** SGLang's `weight_version` until a weight update names one (its server_args default): it says nothing. */
export const UNSET_WEIGHT_VERSION = 'default';

/**
 * Whether a call was served by weights other than those tokentap tagged it with (issue 15): the backend reported a
 * weight version (SGLang `meta_info.weight_version`, chat `metadata.weight_version`) that is not its unset value,
 * the call has a policy version (`setPolicyVersion`), and the two differ. A backend that reports none (vLLM) or a
 * call served under no policy version cannot disagree.
 *
 * @example isWeightVersionMismatch({ weightVersion: 'step-11', policyVersion: 'step-12' }) // true
 * @example isWeightVersionMismatch({ weightVersion: 'default', policyVersion: 'step-12' }) // false
 */
export function isWeightVersionMismatch(versions: { weightVersion: string | null; policyVersion: string | null }): boolean {
  const { weightVersion, policyVersion } = versions;
  if (weightVersion === null || weightVersion === UNSET_WEIGHT_VERSION) return false;
  return policyVersion !== null && weightVersion !== policyVersion;
}
