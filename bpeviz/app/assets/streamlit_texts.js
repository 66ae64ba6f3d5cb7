// Streamlit's own texts (upload box, its errors, the multiselect's "Select all", the status widget) in the
// interface language. Streamlit has no setting for them, so the page rewrites them where Streamlit draws them:
// only whole text nodes and placeholders inside Streamlit's widgets, never the app's content (a token may read
// "Upload"). The originals are kept, so switching back to English restores them. bpeviz's own script, no data in it.
(() => {
  const LANG = "__LANG__";
  const WHERE = [
    '[data-testid="stFileUploader"]', '[data-baseweb="popover"]', '[data-testid="stStatusWidget"]',
    '[data-testid="InputInstructions"]', '[data-testid="stMultiSelect"]', '[data-testid="stSelectbox"]',
    '[data-testid="stMainMenuPopover"]',
  ].join(",");
  const PT = [
    [/^Upload$/, "Enviar"],
    [/^Upload directories$/, "Enviar pastas"],
    [/^Drag and drop files here$/, "Arraste e solte os arquivos aqui"],
    [/^Drag and drop a file here$/, "Arraste e solte o arquivo aqui"],
    [/^(\S+) per file$/, "$1 por arquivo"],
    [/^File must be (.+) or smaller\.$/, "O arquivo deve ter no máximo $1."],
    [/^(.+) files are not allowed\.$/, "Arquivos $1 não são aceitos."],
    [/^File size is too small\.$/, "O arquivo é pequeno demais."],
    [/^Only one file is allowed\.$/, "Só um arquivo é aceito."],
    [/^Error: ?$/, "Erro: "],
    [/^Select all$/, "Selecionar tudo"],
    [/^Clear all$/, "Limpar tudo"],
    [/^No results$/, "Nenhum resultado"],
    [/^Choose an option$/, "Escolha uma opção"],
    [/^Choose options$/, "Escolha opções"],
    [/^Running\.\.\.$/, "Executando…"],
    [/^Stop$/, "Parar"],
    [/^Press Enter to apply$/, "Enter para aplicar"],
    [/^Press ⌘\+Enter to apply$/, "⌘+Enter para aplicar"],
    [/^Press Ctrl\+Enter to apply$/, "Ctrl+Enter para aplicar"],
    [/^System$/, "Sistema"],  // the menu's theme: the system's, light or dark
    [/^Light$/, "Claro"],
    [/^Dark$/, "Escuro"],
    [/^Print$/, "Imprimir"],
    [/^Record screen$/, "Gravar a tela"],
  ];
  const state = window.__bpevizTexts || (window.__bpevizTexts = { originals: new WeakMap(), observer: null, lang: "en" });
  state.lang = LANG;

  const translated = (text) => {
    for (const [pattern, replacement] of PT) {
      if (pattern.test(text)) return text.replace(pattern, replacement);
    }
    return null;
  };

  const visit = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const host = node.parentElement;
      if (!host || !host.closest(WHERE)) return;
      const original = state.originals.get(node);
      if (state.lang === "pt") {
        const source = original !== undefined ? original : node.nodeValue;
        const text = translated(source.trim());
        if (text !== null && node.nodeValue !== text) {
          if (original === undefined) state.originals.set(node, node.nodeValue);
          node.nodeValue = text;
        }
      } else if (original !== undefined) {
        node.nodeValue = original;
        state.originals.delete(node);
      }
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (node.hasAttribute && node.hasAttribute("placeholder") && node.closest(WHERE)) {
      const kept = node.getAttribute("data-bpeviz-placeholder");
      if (state.lang === "pt") {
        const text = translated(kept || node.getAttribute("placeholder"));
        if (text !== null) {
          if (!kept) node.setAttribute("data-bpeviz-placeholder", node.getAttribute("placeholder"));
          if (node.getAttribute("placeholder") !== text) node.setAttribute("placeholder", text);
        }
      } else if (kept) {
        node.setAttribute("placeholder", kept);
        node.removeAttribute("data-bpeviz-placeholder");
      }
    }
    for (const child of node.childNodes) visit(child);
  };

  if (!state.observer) {
    state.observer = new MutationObserver((changes) => {
      for (const change of changes) {
        if (change.type === "characterData") visit(change.target);
        else if (change.type === "attributes") visit(change.target);
        else for (const added of change.addedNodes) visit(added);
      }
    });
    state.observer.observe(document.body, { childList: true, subtree: true, characterData: true,
                                            attributes: true, attributeFilter: ["placeholder"] });
  }
  visit(document.body);
})();
