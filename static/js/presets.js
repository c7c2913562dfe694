/* Experiment form: a preset button fills the parameter fields (named p_<param>). */
(function () {
  "use strict";
  document.querySelectorAll("button.preset").forEach((btn) => {
    btn.addEventListener("click", () => {
      const params = JSON.parse(btn.dataset.params);
      for (const [name, value] of Object.entries(params)) {
        const input = document.querySelector('[name="p_' + name + '"]');
        if (!input) continue;
        if (input.type === "checkbox") input.checked = !!value; else input.value = value;
      }
    });
  });
})();
