/* Experiment form: a preset button fills the parameter fields (named p_<param>) and picks the
 * traces it is meant for (data-inputs: {input name: [trace ids]}) when the user has them. */
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
      const inputs = JSON.parse(btn.dataset.inputs || "{}");
      for (const [name, ids] of Object.entries(inputs)) {
        const select = document.querySelector('select[name="' + name + '"]');
        if (!select) continue;
        const want = ids.map(String);
        if (select.multiple) {
          Array.from(select.options).forEach((o) => { o.selected = want.includes(o.value); });
        } else if (want.length) {
          select.value = want[0];
        }
      }
      document.querySelectorAll("button.preset").forEach((b) => b.classList.toggle("chosen", b === btn));
    });
  });
})();
