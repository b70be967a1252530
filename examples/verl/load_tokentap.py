"""Load a tokentap `--format verl` export into the padded batch verl's agent loop produces.

tokentap writes one padding-free row per sample (docs/formats.md, "verl"): uid, prompt_ids, response_ids,
response_mask, response_logprobs, reward, advantage, num_turns, loss_weight, rollout_id, session_id, extra_info.
verl has no "load external rollouts" path, so this module rebuilds what `_agent_loop_postprocess` and
`_postprocess` hand the trainer (verl/experimental/agent_loop/agent_loop.py):

    prompts            [B, P]    int64    left-padded with pad_token_id
    responses          [B, R]    int64    right-padded
    response_mask      [B, R]    int64    1 = model token; 0 = tool token or padding
    input_ids          [B, P+R]  int64    cat(prompts, responses)
    attention_mask     [B, P+R]  int64    0 on padding
    position_ids       [B, P+R]  int64    cumsum(attention_mask) - 1, clipped at 0
    rollout_log_probs  [B, R]    float32  0.0 on padding
    rm_scores          [B, R]    float32  the reward on the last valid response token, 0 elsewhere
    non_tensor_batch: uid (the GRPO group key), __num_turns__, advantage (NaN when none), loss_weight,
                      rollout_id, session_id, extra_info

Use it from a verl recipe (e.g. a custom rollout step that returns the loaded batch instead of generating):

    from load_tokentap import read_rows, build_batch, to_dataproto
    batch = to_dataproto(build_batch(read_rows("train.parquet"), prompt_length=4096, response_length=8192))

Or check a file from the shell (prints the padded arrays as JSON):

    python3 load_tokentap.py --check train.jsonl [--prompt-length P] [--response-length R] [--pad-token-id ID]

Requirements: numpy; pyarrow or pandas for .parquet (JSONL needs only the json module); torch and verl for
`to_dataproto`, imported only there. tokentap's tests run `build_batch` (numpy) against expectations computed
in TypeScript; nothing here has been run end to end against torch or verl (they are not installed in tokentap's
CI), so check `to_dataproto` against the verl version you pin.
"""

import argparse
import json
import math
import sys

import numpy as np


def read_rows(path):
    """The rows of a tokentap verl export: .parquet through pyarrow (else pandas), anything else as JSONL."""
    if path.endswith(".parquet"):
        try:
            import pyarrow.parquet as pq

            return pq.read_table(path).to_pylist()
        except ImportError:
            import pandas as pd

            return pd.read_parquet(path).to_dict("records")
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def build_batch(rows, prompt_length=None, response_length=None, pad_token_id=0):
    """Pads the rows into verl's agent-loop batch (numpy only).

    prompt_length / response_length default to the longest prompt / response of the rows; a row longer than the
    length asked for raises ValueError (verl's rollout.prompt_length / response_length: truncating here would
    cut trained tokens silently). Returns {"tensors": {name: ndarray}, "non_tensors": {name: ndarray},
    "meta_info": {}}.
    """
    if not rows:
        raise ValueError("no rows to load")
    prompt_width = _width(rows, "prompt_ids", prompt_length)
    response_width = _width(rows, "response_ids", response_length)
    count = len(rows)
    prompts = np.full((count, prompt_width), pad_token_id, dtype=np.int64)
    prompt_attention = np.zeros((count, prompt_width), dtype=np.int64)
    responses = np.full((count, response_width), pad_token_id, dtype=np.int64)
    response_attention = np.zeros((count, response_width), dtype=np.int64)
    response_mask = np.zeros((count, response_width), dtype=np.int64)
    rollout_log_probs = np.zeros((count, response_width), dtype=np.float32)
    rm_scores = np.zeros((count, response_width), dtype=np.float32)
    for index, row in enumerate(rows):
        prompt = np.asarray(row["prompt_ids"], dtype=np.int64)
        response = np.asarray(row["response_ids"], dtype=np.int64)
        size = len(response)
        if size == 0:
            raise ValueError(f"row {index} has no response tokens to carry its reward")
        for key in ("response_mask", "response_logprobs"):
            if len(row[key]) != size:
                raise ValueError(f"row {index}: {key} has {len(row[key])} entries for {size} response tokens")
        # prompts are left-padded so every response starts at column P (verl's _agent_loop_postprocess)
        prompts[index, prompt_width - len(prompt):] = prompt
        prompt_attention[index, prompt_width - len(prompt):] = 1
        responses[index, :size] = response
        response_attention[index, :size] = 1
        response_mask[index, :size] = np.asarray(row["response_mask"], dtype=np.int64)
        rollout_log_probs[index, :size] = np.asarray(row["response_logprobs"], dtype=np.float32)
        rm_scores[index, size - 1] = row["reward"]
    attention_mask = np.concatenate([prompt_attention, response_attention], axis=1)
    tensors = {
        "prompts": prompts,
        "responses": responses,
        "response_mask": response_mask * response_attention,
        "input_ids": np.concatenate([prompts, responses], axis=1),
        "attention_mask": attention_mask,
        "position_ids": np.clip(np.cumsum(attention_mask, axis=1) - 1, 0, None),
        "rollout_log_probs": rollout_log_probs,
        "rm_scores": rm_scores,
    }
    return {"tensors": tensors, "non_tensors": _non_tensors(rows), "meta_info": {}}


def to_dataproto(batch):
    """verl's DataProto of a build_batch result. Imports torch and verl here, so the rest runs without them."""
    import torch
    from verl.protocol import DataProto

    tensors = {name: torch.from_numpy(array) for name, array in batch["tensors"].items()}
    return DataProto.from_dict(tensors=tensors, non_tensors=batch["non_tensors"], meta_info=batch["meta_info"])


def _width(rows, key, asked):
    longest = max(len(row[key]) for row in rows)
    if asked is None:
        return longest
    if longest > asked:
        raise ValueError(f"a row has {longest} {key}, more than the {asked} asked for")
    return asked


def _non_tensors(rows):
    def column(key, dtype=object):
        return np.array([row[key] for row in rows], dtype=dtype)

    # Parquet holds the json column as a JSON string; JSONL holds the object itself
    extras = [json.loads(row["extra_info"]) if isinstance(row["extra_info"], str) else row["extra_info"] for row in rows]
    advantages = [math.nan if row["advantage"] is None else row["advantage"] for row in rows]
    return {
        "uid": column("uid"),
        "__num_turns__": column("num_turns", np.int32),
        "advantage": np.array(advantages, dtype=np.float32),
        "loss_weight": column("loss_weight", np.float32),
        "rollout_id": column("rollout_id"),
        "session_id": column("session_id"),
        "extra_info": np.array(extras, dtype=object),
    }


def _to_json(batch):
    def plain(array):
        if array.dtype == object:
            return array.tolist()
        values = array.tolist()
        if array.dtype.kind == "f" and array.ndim == 1:
            return [None if math.isnan(value) else value for value in values]
        return values

    return {
        "tensors": {name: {"dtype": str(array.dtype), "shape": list(array.shape), "data": plain(array)} for name, array in batch["tensors"].items()},
        "non_tensors": {name: plain(array) for name, array in batch["non_tensors"].items()},
    }


def main(argv):
    parser = argparse.ArgumentParser(description="Pad a tokentap verl export into verl's agent-loop batch.")
    parser.add_argument("--check", metavar="FILE", required=True, help="a .jsonl or .parquet verl export; prints the batch as JSON")
    parser.add_argument("--prompt-length", type=int, default=None)
    parser.add_argument("--response-length", type=int, default=None)
    parser.add_argument("--pad-token-id", type=int, default=0)
    args = parser.parse_args(argv)
    batch = build_batch(read_rows(args.check), args.prompt_length, args.response_length, args.pad_token_id)
    json.dump(_to_json(batch), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
