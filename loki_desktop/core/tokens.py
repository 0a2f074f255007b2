"""A tokenizer-free estimate of how many tokens a text costs a local model.

No tokenizer can be downloaded at run time, and each model family has its own
anyway, so the estimate mimics what byte-level BPE tokenizers (Qwen, Llama 3,
Gemma, Mistral) do: common words are one token, long words a few, every digit
one (Qwen and Gemma split numbers digit by digit), runs of punctuation one per
four characters, CJK about 0.6 per character and rare symbols one per byte.

Measured against the real Qwen 3, Llama 3.1 and Gemma 3 tokenizers on 145
samples (English and French prose, Python, JavaScript, JSON, shell output,
Chinese; 215,000 characters): in total 5 % high for Qwen 3, 7 % high for
Llama 3.1, 2 % low for Gemma 3; per sample from 26 % low (dense tables such as
`ls -l` output) to 45 % high. The frozen reference in tests/corpus/tokens checks
it stays so. Callers that must not overflow add a margin and calibrate with the
counts the server reports (see `core.llm.budget`).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

# Pieces a pre-tokenizer would split: words (with their leading underscores), single
# digits, whitespace runs, punctuation runs, underscores.
_PIECE = re.compile(r"_*[^\W\d_]+|\d|\s+|[^\w\s]+|_+")
_WIDE = 0x2E80  # CJK radicals onwards: ideographs, kana, hangul
_LONG_WORD = 7  # an ASCII word gains a token every 7 characters
_SPACE_RUN = 16  # tokenizers merge runs of spaces up to about this length
# Past this length a text is estimated from its start and end, scaled: a whole scan costs
# about a second per 10 MB, and so long a text only has to be known to be far too long.
_SAMPLED_OVER = 200_000
_SAMPLE_HALF = 50_000


def estimate_tokens(text: str) -> int:
    """Estimated number of tokens of `text` for a local model (0 for an empty string).

    Pure and cheap (about 0.1 µs a character); results are memoised, so estimating
    the same history again on the next request costs a dictionary lookup.
    """
    if not text:
        return 0
    if len(text) > _SAMPLED_OVER:
        sample = text[:_SAMPLE_HALF] + text[-_SAMPLE_HALF:]
        return math.ceil(_estimate(sample) * len(text) / len(sample))
    return _estimate(text)


@lru_cache(maxsize=8192)
def _estimate(text: str) -> int:
    count = 0
    for match in _PIECE.finditer(text):
        piece = match.group()
        first = piece[0]
        if first.isalpha() or (first == "_" and piece[-1].isalpha()):
            count += _word(piece)
        elif first.isdigit():
            count += 1
        elif first.isspace():
            # a single space is merged into the next word's token
            if piece != " ":
                count += 1 + len(piece) // _SPACE_RUN
        elif piece.isascii():
            count += (len(piece) + 3) // 4
        else:
            count += _symbols(piece)
    return count


def _symbols(piece: str) -> int:
    # CJK punctuation is in the vocabulary; rarer symbols fall back to about a token a byte
    wide = sum(1 for char in piece if ord(char) >= _WIDE)
    rest = piece.encode("utf-8")
    return wide + math.ceil((len(rest) - 3 * wide) / 1.2)


def _word(piece: str) -> int:
    if piece.isascii():
        return 1 + (len(piece) - 1) // _LONG_WORD
    wide = sum(1 for char in piece if ord(char) >= _WIDE)
    return math.ceil(wide * 0.6) + 1 + (len(piece) - wide) // 4
