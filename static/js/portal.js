// Every page (base.html): behaviour that used to be inline attributes, which the
// Content-Security-Policy (script-src 'self', style-src 'self') refuses.
(function () {
  // the menu button of narrow screens
  const toggle = document.getElementById("menu-toggle");
  if (toggle) {
    toggle.addEventListener("click", () => {
      const bar = document.getElementById("topbar");
      bar.classList.toggle("open");
      toggle.setAttribute("aria-expanded", bar.classList.contains("open"));
    });
  }
  // <form data-confirm="…"> and <button data-confirm="…">: ask before submitting
  document.addEventListener("submit", (ev) => {
    const form = ev.target;
    const button = ev.submitter;
    const message = (button && button.dataset.confirm) || form.dataset.confirm;
    if (message && !window.confirm(message)) ev.preventDefault();
  });
  // progress bars rendered by the server: <div class="bar" data-progress="42">
  document.querySelectorAll(".bar[data-progress]").forEach((bar) => {
    bar.style.width = bar.dataset.progress + "%";
  });
})();
