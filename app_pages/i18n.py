"""Interface strings in English and Portuguese. Plain data; `t(key, lang)` picks one."""

from __future__ import annotations

LANGUAGES = {"en": "English", "pt": "Português"}

STRINGS: dict[str, dict[str, str]] = {
    "train_title": {"en": "Training: watch the merge table grow", "pt": "Treino: veja a tabela de fusões crescer"},
    "encode_title": {"en": "Encode a sentence", "pt": "Codificar uma frase"},
    "charts_title": {"en": "What the merges buy", "pt": "O que as fusões compram"},
    "quirks_title": {"en": "Quirks gallery", "pt": "Galeria de esquisitices"},
    "files_title": {"en": "Save, export, import", "pt": "Salvar, exportar, importar"},
    "nav_train": {"en": "Train", "pt": "Treinar"},
    "nav_encode": {"en": "Encode", "pt": "Codificar"},
    "nav_charts": {"en": "Charts", "pt": "Gráficos"},
    "nav_quirks": {"en": "Quirks", "pt": "Esquisitices"},
    "nav_files": {"en": "Files", "pt": "Arquivos"},
    "corpus": {"en": "Corpus", "pt": "Corpus"},
    "source": {"en": "Text source", "pt": "Origem do texto"},
    "src_shipped": {"en": "Shipped corpus", "pt": "Corpus incluído"},
    "src_paste": {"en": "Paste text", "pt": "Colar texto"},
    "src_upload": {"en": "Upload .txt", "pt": "Enviar .txt"},
    "src_gpt2": {"en": "Replay GPT-2's merges", "pt": "Repetir as fusões do GPT-2"},
    "paste_here": {"en": "Text to train on", "pt": "Texto para treinar"},
    "lines_are_docs": {"en": "Each line is a document", "pt": "Cada linha é um documento"},
    "settings": {"en": "Settings", "pt": "Configurações"},
    "vocab_size": {"en": "Vocab size (base symbols + merges)", "pt": "Tamanho do vocabulário (símbolos base + fusões)"},
    "level": {"en": "Symbols", "pt": "Símbolos"},
    "pretokenizer": {"en": "Pre-tokenizer (split before merging)", "pt": "Pré-tokenizador (divide antes de fundir)"},
    "custom_pattern": {"en": "Custom split regex", "pt": "Regex de divisão personalizada"},
    "tie_break": {"en": "Tie rule", "pt": "Regra de desempate"},
    "preview": {"en": "How a sample is split", "pt": "Como um exemplo é dividido"},
    "classroom": {"en": "Classroom mode (big, high contrast)", "pt": "Modo sala de aula (grande, alto contraste)"},
    "interface": {"en": "Interface language", "pt": "Idioma da interface"},
    "first": {"en": "First", "pt": "Início"},
    "prev": {"en": "Previous", "pt": "Anterior"},
    "next": {"en": "Next", "pt": "Próximo"},
    "last": {"en": "Last", "pt": "Fim"},
    "play": {"en": "Play", "pt": "Tocar"},
    "pause": {"en": "Pause", "pt": "Pausar"},
    "speed": {"en": "Seconds per step", "pt": "Segundos por passo"},
    "step": {"en": "Step (merges applied)", "pt": "Passo (fusões aplicadas)"},
    "merge_table": {"en": "Merge table", "pt": "Tabela de fusões"},
    "pair_counts": {"en": "Pair counts before the next merge", "pt": "Contagem de pares antes da próxima fusão"},
    "corpus_now": {"en": "The corpus at this step", "pt": "O corpus neste passo"},
    "tokens_now": {"en": "Tokens now", "pt": "Tokens agora"},
    "bpt_now": {"en": "Bytes per token", "pt": "Bytes por token"},
    "vocab_now": {"en": "Vocab size now", "pt": "Vocabulário agora"},
    "highlight": {"en": "Highlight in the corpus the token of merge", "pt": "Destacar no corpus o token da fusão"},
    "quiz": {"en": "Guess the next merge", "pt": "Adivinhe a próxima fusão"},
    "reveal": {"en": "Reveal", "pt": "Revelar"},
    "your_guess": {"en": "Your guess", "pt": "Seu palpite"},
    "sentence": {"en": "Sentence to encode", "pt": "Frase para codificar"},
    "try": {"en": "Try", "pt": "Experimente"},
    "trace": {"en": "The trace: which merges fire, in rank order", "pt": "O rastro: quais fusões disparam, na ordem"},
    "final_tokens": {"en": "Final tokens", "pt": "Tokens finais"},
    "real_tokenizers": {"en": "The same sentence through real tokenizers", "pt": "A mesma frase em tokenizadores reais"},
    "snapshot": {"en": "Lesson snapshot", "pt": "Estado da aula"},
    "download_snapshot": {"en": "Download lesson (JSON)", "pt": "Baixar aula (JSON)"},
    "load_snapshot": {"en": "Load a lesson JSON", "pt": "Carregar uma aula JSON"},
    "share_hint": {"en": "The address bar holds this lesson: copy it to share.", "pt": "A barra de endereço guarda esta aula: copie-a para compartilhar."},
}


def t(key: str, lang: str = "en") -> str:
    """The interface string `key` in `lang`, falling back to English."""
    entry = STRINGS[key]
    return entry.get(lang) or entry["en"]
