/// The page's only script, inline at the end of the body.
extension ContactSheet {
    /// Puts the cards in manifest order and keeps the chosen filter in the address.
    ///
    /// Cards are written as rows finish (the page is streamed in constant memory), so they
    /// arrive in completion order; sorting a few thousand nodes by `data-row` once is cheap.
    /// Without script the page still works, in completion order. The filter itself is CSS;
    /// the script only mirrors it in `#status` so that a link can open the page filtered.
    static let script = """
    (function () {
      "use strict";
      var main = document.getElementById("cards");
      var cards = Array.prototype.slice.call(main.querySelectorAll(".card"));
      var row = function (card) { return Number(card.getAttribute("data-row")); };
      var sorted = true;
      for (var i = 1; i < cards.length && sorted; i++) sorted = row(cards[i - 1]) <= row(cards[i]);
      if (!sorted) {
        cards.sort(function (a, b) { return row(a) - row(b); });
        var fragment = document.createDocumentFragment();
        cards.forEach(function (card) { fragment.appendChild(card); });
        main.appendChild(fragment);
      }
      var show = function (status) {
        var radio = document.getElementById("show-" + status);
        if (radio) radio.checked = true;
      };
      show(location.hash.slice(1));
      window.addEventListener("hashchange", function () { show(location.hash.slice(1)); });
      document.querySelectorAll("input.filter").forEach(function (radio) {
        radio.addEventListener("change", function () {
          if (radio.checked) location.replace("#" + (radio.value === "all" ? "" : radio.value));
        });
      });
    })();

    """
}
