/* hloscope report: sortable and filterable tables. No libraries, no network.

   A table marked data-hs-sortable sorts by the column whose header is clicked (numbers by the
   cell's data-v, largest first; text A-Z; a second click reverses). An input with
   data-hs-filter="ID" keeps the rows of table ID that match every word typed: plain words
   match anywhere in the row, COLUMN=TEXT (or ~) inside one column, COLUMN!=TEXT excludes, and
   COLUMN>N, <N, >=N, <=N compare numbers (1e6, 2.5M, 64KiB); blanks around the operator are
   allowed (bytes > 10KiB).

   A link to a kernel row (a.hs-k) shows the row in the middle of its table's scrolling box, so
   the box's sticky header never covers it, and marks it (hs-flash); the address keeps the
   row's #id. A page opened at such an address does the same.

   A long table shows its first data-hs-page rows; the others wait, parsed but not laid out, in
   the <template id="ID-more"> after it (laying out thousands of rows is what makes a big page
   slow to open). Sorting and filtering work on every row, and "show all" shows every match.
   Rows are moved, never rebuilt: no text from the page ever becomes HTML here.
   The script may run more than once (notebook outputs): each table is set up once. */
(function () {
  "use strict";

  var SCALE = { k: 1e3, m: 1e6, g: 1e9, t: 1e12, kib: 1024, mib: 1048576, gib: 1073741824 };
  var views = {};

  function numberOf(text) {
    var m = /^\s*(-?[0-9.]+(?:e[-+]?\d+)?)\s*([a-z]*)\s*$/i.exec(text);
    if (!m) { return NaN; }
    var scale = m[2] ? SCALE[m[2].toLowerCase()] : 1;
    return scale === undefined ? NaN : parseFloat(m[1]) * scale;
  }

  function cellKey(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) { return numeric ? NaN : ""; }
    var v = cell.getAttribute("data-v");
    if (numeric) { return v === null || v === "" ? NaN : parseFloat(v); }
    return (v === null ? cell.textContent : v).toLowerCase();
  }

  function compare(x, y, numeric, descending) {
    if (numeric) {
      var xa = isNaN(x), ya = isNaN(y);
      if (xa || ya) { return xa === ya ? 0 : (xa ? 1 : -1); } /* no value: always last */
    }
    var c = x < y ? -1 : (x > y ? 1 : 0);
    return descending ? -c : c;
  }

  /* "bytes > 10KiB" means "bytes>10KiB": blanks around an operator join it to its column and
     value before the words are split. */
  function parseTerms(text) {
    var terms = [];
    text = text.replace(/\s*(!=|>=|<=|=|~|>|<)\s*/g, "$1");
    text.trim().split(/\s+/).forEach(function (word) {
      if (!word) { return; }
      var m = /^([A-Za-z_]+)(!=|>=|<=|=|~|>|<)(.*)$/.exec(word);
      if (m) {
        terms.push({ key: m[1].toLowerCase(), op: m[2], value: m[3].toLowerCase() });
      } else {
        terms.push({ key: null, op: "~", value: word.toLowerCase() });
      }
    });
    return terms;
  }

  function termMatches(row, term, columns) {
    if (term.key === null) { return row.textContent.toLowerCase().indexOf(term.value) >= 0; }
    var index = columns[term.key];
    if (index === undefined) { return false; }
    var cell = row.cells[index];
    if (!cell) { return false; }
    if (term.op === "=" || term.op === "~" || term.op === "!=") {
      var hit = cell.textContent.toLowerCase().indexOf(term.value) >= 0 ||
        (cell.getAttribute("title") || "").toLowerCase().indexOf(term.value) >= 0;
      return term.op === "!=" ? !hit : hit;
    }
    var have = parseFloat(cell.getAttribute("data-v"));
    var want = numberOf(term.value);
    if (isNaN(have) || isNaN(want)) { return false; }
    if (term.op === ">") { return have > want; }
    if (term.op === "<") { return have < want; }
    if (term.op === ">=") { return have >= want; }
    return have <= want;
  }

  /* One table: every row (in the current order), the rows that pass the filter, and how many
     of those are shown. */
  function View(table) {
    this.table = table;
    this.body = table.tBodies[0];
    this.rows = Array.prototype.slice.call(this.body.rows);
    var more = document.getElementById(table.id + "-more");
    if (more && more.content) {
      this.rows = this.rows.concat(Array.prototype.slice.call(more.content.querySelectorAll("tr")));
    }
    this.page = parseInt(table.getAttribute("data-hs-page") || "0", 10) || 0;
    this.limit = this.page || Infinity;
    this.matches = this.rows;
    this.counter = document.getElementById(table.id + "-count");
    this.button = document.getElementById(table.id + "-all");
    this.columns = {};
    var self = this;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      var key = th.getAttribute("data-key");
      if (key) { self.columns[key.toLowerCase()] = i; }
      th.addEventListener("click", function () { self.sort(th); });
    });
    if (this.button) {
      this.button.addEventListener("click", function () { self.showAll(); });
    }
    if (this.rows.length > this.body.rows.length) { this.show(); }
  }

  View.prototype.show = function () {
    var shown = Math.min(this.limit, this.matches.length);
    var frag = document.createDocumentFragment();
    for (var i = 0; i < shown; i++) { frag.appendChild(this.matches[i]); }
    this.body.textContent = "";
    this.body.appendChild(frag);
    if (this.counter) {
      var total = this.rows.length.toLocaleString("en-US");
      var text = "";
      if (this.matches.length !== this.rows.length) {
        text = this.matches.length.toLocaleString("en-US") + " of " + total + " match";
      }
      if (shown < this.matches.length) {
        text += (text ? "; " : "") + "showing the first " + shown.toLocaleString("en-US");
      }
      this.counter.textContent = text;
    }
    if (this.button) { this.button.hidden = shown >= this.matches.length; }
  };

  View.prototype.sort = function (th) {
    var index = th.cellIndex;
    var numeric = th.getAttribute("data-type") === "num";
    var now = th.getAttribute("aria-sort");
    var descending = now ? now === "ascending" : numeric;
    var keyed = this.rows.map(function (row, i) {
      return { row: row, key: cellKey(row, index, numeric), i: i };
    });
    keyed.sort(function (a, b) {
      return compare(a.key, b.key, numeric, descending) || a.i - b.i;
    });
    this.rows = keyed.map(function (k) { return k.row; });
    Array.prototype.forEach.call(this.table.tHead.rows[0].cells, function (h) {
      if (h !== th) { h.removeAttribute("aria-sort"); }
    });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    this.filter(this.terms || []);
  };

  View.prototype.filter = function (terms) {
    var columns = this.columns;
    this.terms = terms;
    this.matches = terms.length ? this.rows.filter(function (row) {
      return terms.every(function (t) { return termMatches(row, t, columns); });
    }) : this.rows;
    this.show();
  };

  View.prototype.showAll = function () {
    this.limit = Infinity;
    this.show();
  };

  /* Make sure the row with this id is on the page (a link from the source view or a graph). */
  View.prototype.reveal = function (id) {
    for (var i = 0; i < this.rows.length; i++) {
      if (this.rows[i].id === id) {
        if (this.matches.indexOf(this.rows[i]) < 0) {
          var input = document.querySelector('input[data-hs-filter="' + this.table.id + '"]');
          if (input) { input.value = ""; }
          this.filter([]);
        }
        if (!this.rows[i].parentNode || this.rows[i].parentNode !== this.body) { this.showAll(); }
        return true;
      }
    }
    return false;
  };

  function setUp(root) {
    Array.prototype.forEach.call(root.querySelectorAll("table[data-hs-sortable]"), function (table) {
      if (table.getAttribute("data-hs-ready") || !table.id) { return; }
      table.setAttribute("data-hs-ready", "1");
      views[table.id] = new View(table);
    });
    Array.prototype.forEach.call(root.querySelectorAll("input[data-hs-filter]"), function (input) {
      var view = views[input.getAttribute("data-hs-filter")];
      if (input.getAttribute("data-hs-ready") || !view) { return; }
      input.setAttribute("data-hs-ready", "1");
      input.addEventListener("input", function () { view.filter(parseTerms(input.value)); });
    });
    if (!window.__hloscopeLinks) {
      window.__hloscopeLinks = true;
      document.addEventListener("click", function (event) {
        var link = event.target.closest ? event.target.closest("a.hs-k") : null;
        if (!link) { return; }
        var id = link.getAttribute("href").slice(1);
        if (goTo(id)) {
          event.preventDefault();
          if (history.replaceState) { history.replaceState(null, "", "#" + id); }
        }
      });
      if (location.hash.length > 1) { goTo(decodeURIComponent(location.hash.slice(1))); }
    }
  }

  /* Show the row with this id below its table's sticky header; false when there is none. */
  function goTo(id) {
    var found = Object.keys(views).some(function (key) { return views[key].reveal(id); });
    var row = document.getElementById(id);
    if (!found || !row) { return false; }
    var marked = document.querySelectorAll("tr.hs-flash");
    Array.prototype.forEach.call(marked, function (r) { r.classList.remove("hs-flash"); });
    row.classList.add("hs-flash");
    row.scrollIntoView({ block: "center" });
    /* Centred, the row clears the header unless the box cannot scroll that far; make sure. */
    var box = row.closest(".hs-scroll");
    var head = row.closest("table").tHead;
    if (box && head) {
      var covered = head.getBoundingClientRect().bottom - row.getBoundingClientRect().top;
      if (covered > 0) { box.scrollTop -= covered; }
    }
    return true;
  }

  setUp(document);
}());
