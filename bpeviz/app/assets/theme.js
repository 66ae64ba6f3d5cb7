// The page's theme for bpeviz's own styles (chips, tables, the player, classroom mode): <html data-bpe-theme="dark">
// or "light", read from the background Streamlit paints (its light or dark theme: the browser's preference, or the
// menu's Settings), and kept as the theme changes. base.css gives each theme its colours. bpeviz's own script, no data.
(() => {
  const mark = () => {
    const app = document.querySelector('.stApp');
    if (!app) return;
    const [r, g, b] = (getComputedStyle(app).backgroundColor.match(/[0-9.]+/g) || [255, 255, 255]).map(Number);
    const theme = 0.299 * r + 0.587 * g + 0.114 * b < 128 ? 'dark' : 'light';
    if (document.documentElement.dataset.bpeTheme !== theme) document.documentElement.dataset.bpeTheme = theme;
    if (app !== window.bpeThemeApp) {  // Streamlit changes the app's class when it changes the theme
      window.bpeThemeApp = app;
      new MutationObserver(mark).observe(app, {attributes: true, attributeFilter: ['class', 'style']});
    }
  };
  mark();
  if (!window.bpeThemeWatched) {
    window.bpeThemeWatched = true;
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => setTimeout(mark, 100));
  }
})();
