// Figures drawn smaller than their pixels open at full size, in a scrollable overlay, on
// a click (Escape or a second click closes it). Notebook outputs are inline PNGs that no
// link can open, so this is their zoom (a figure that links to its file opens here too).
(function () {
  function open(img) {
    var overlay = document.createElement("div");
    overlay.className = "bnc-zoom-overlay";
    var big = document.createElement("img");
    big.src = img.currentSrc || img.src;
    big.alt = img.alt;
    overlay.appendChild(big);
    function close() {
      overlay.remove();
      document.removeEventListener("keydown", onKey);
    }
    function onKey(event) {
      if (event.key === "Escape") close();
    }
    overlay.addEventListener("click", close);
    document.addEventListener("keydown", onKey);
    document.body.appendChild(overlay);
  }
  function mark(img) {
    if (img.naturalWidth <= img.clientWidth * 1.15) return;  // shown at (about) full size
    if (img.classList.contains("bnc-zoomable")) return;
    img.classList.add("bnc-zoomable");
    img.title = "Click to see at full size (" + img.naturalWidth + " px wide)";
    var hint = document.createElement("div");
    hint.className = "bnc-zoom-hint";
    hint.textContent = "Click the figure to see it at full size.";
    img.insertAdjacentElement("afterend", hint);
    img.addEventListener("click", function (event) {
      event.preventDefault();
      open(img);
    });
  }
  function markAll() {
    document.querySelectorAll(".bd-article img").forEach(function (img) {
      if (img.complete) mark(img);
      else img.addEventListener("load", function () { mark(img); });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", markAll);
  else markAll();
})();
