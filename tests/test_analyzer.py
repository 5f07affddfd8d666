"""The lexical analyzer: Snowball English stems, pass-through tokens, exact forms (issue 24)."""

from paperscope.analyzer import index_row, index_tokens, query_tokens, stem_tokens


def test_snowball_gives_an_optimizer_and_an_optimization_one_stem():
    words = ["optimizers", "optimization", "optimizer", "optimize", "optimistic"]
    assert stem_tokens(words) == ["optim", "optim", "optim", "optim", "optimist"]
    assert stem_tokens(["transformers", "transformation", "networks", "generalization"]) == [
        "transform",
        "transform",
        "network",
        "general",
    ]


def test_tokens_with_digits_and_chinese_words_pass_through():
    assert stem_tokens(["cifar10", "4o", "gpt", "lora", "扩散", "models"]) == [
        "cifar10",
        "4o",
        "gpt",
        "lora",
        "扩散",
        "model",
    ]
    assert index_tokens("GPT-4o on CIFAR-100") == ["gpt", "4o", "on", "cifar", "100"]


def test_index_row_holds_stems_and_the_exact_forms_whose_stem_differs():
    title, body, exact = index_row("Transformers for LoRA", "We train transformers on CIFAR-10.")
    assert (title, body) == ("transform for lora", "we train transform on cifar 10")
    assert exact == "transformers transformers"
    assert index_row(None, "扩散模型") == ("", "扩散 模型", "")


def test_query_tokens_pair_each_surface_word_with_its_stem():
    assert query_tokens("Optimizers") == [("optimizers", "optim")]
    assert query_tokens("state-of-the-art") == [
        ("state", "state"),
        ("of", "of"),
        ("the", "the"),
        ("art", "art"),
    ]
