// @ts-check
/* The report data (#trex-data), its coded columns decoded, and the Engine view of one engine. */

/** @type {ReportJSON} */
const DATA = readJSON('trex-data');
const COLORS = DATA.colors;

/** @param {Coded} column @returns {string[]} */
function decode(column) {
  const values = column.values;
  return column.codes.map(c => values[c]);
}

/** @param {CodedLists} column @returns {string[][]} */
function decodeLists(column) {
  const values = column.values;
  return column.codes.map(cs => cs.map(c => values[c]));
}

/**
 * How the page reads a column of each encoding (column_spec.Encoding): coded columns become plain
 * lists, the others are used as written (`row`, the row's position, is not written).
 * @type {Record<ColumnEncoding, (column: any) => any>}
 */
const DECODERS = {
  row: column => column,
  text: column => column,
  coded: decode,
  coded_lists: decodeLists,
  floats: column => column,
  ints: column => column,
};

/**
 * An engine's layer columns, each decoded by the encoding its declaration names (DATA.layer_columns).
 * @param {LayerColumnsJSON} L @returns {LayerColumns}
 */
function decodeLayers(L) {
  /** @type {Object<string, any>} */
  const out = {};
  for (const c of DATA.layer_columns) {
    if (c.encoding !== 'row') out[c.key] = DECODERS[c.encoding](L[c.key]);
  }
  return /** @type {LayerColumns} */ (out);
}

class Engine {
  /** @param {number} k @param {EngineJSON} d */
  constructor(k, d) {
    this.k = k;
    this.d = d;
    this.L = decodeLayers(d.layers);
    this.n = d.layers.name.length;
    /** @type {Roofline} */
    this.R = Object.assign({}, d.roofline, { model: decode(d.roofline.model), bound: decode(d.roofline.bound) });
    /** @type {Map<string, number>|null} */
    this.index = null;
    /** @type {string[]|null} */
    this.hay = null;
    /** @type {DetailsJSON|null} */
    this.detailsData = null;
    /** @type {{producer: Map<string, number>, consumers: Map<string, number[]>}|null} */
    this.tensors = null;
    /** @type {Map<number, number>|null} */
    this.rooflineRow = null;
    /** @type {Finding[]|null} */
    this.findingList = null;
    /** @type {Map<number, number[]>|null} */
    this.lintRows = null;
  }

  label() { return this.d.label || this.d.name; }

  /** The details block, parsed when a layer is first opened. @returns {DetailsJSON} */
  detailsJSON() {
    if (!this.detailsData) this.detailsData = readJSON('trex-details-' + this.k);
    return this.detailsData;
  }

  /** @param {number} t @returns {Tensor} */
  tensor(t) {
    const T = this.detailsJSON().tensors;
    return [T.name[t], T.shapes[T.shape[t]], T.format.values[T.format.codes[t]], T.bytes[t],
      T.precision.values[T.precision.codes[t]]];
  }

  /** @param {number} row @returns {LayerDetail} */
  details(row) {
    const D = this.detailsJSON();
    if (!D || D.attr[row] == null) return [{}, [], []];
    return [D.attrs[D.attr[row]], D.inputs[row].map(t => this.tensor(t)), D.outputs[row].map(t => this.tensor(t))];
  }

  /** @param {string} name */
  rowOfName(name) {
    if (!this.index) {
      const index = this.index = new Map();
      this.L.name.forEach((n, i) => { if (!index.has(n)) index.set(n, i); });
    }
    const r = this.index.get(name);
    return r == null ? -1 : r;
  }

  /** @param {number} row */
  haystack(row) {
    if (!this.hay) {
      const L = this.L;
      this.hay = L.name.map((n, i) => [n, L.type[i], L.tactic[i], L.onnx[i].join('\n')].join('\n').toLowerCase());
    }
    return this.hay[row];
  }

  /**
   * Rows whose name, type, tactic or ONNX nodes hold every word of the query.
   * @param {string} query @param {number[]} [rows] @returns {number[]}
   */
  search(query, rows) {
    const terms = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
    const out = [];
    const n = rows ? rows.length : this.n;
    for (let j = 0; j < n; j++) {
      const i = rows ? rows[j] : j;
      if (!terms.length) { out.push(i); continue; }
      const text = this.haystack(i);
      if (terms.every(t => text.includes(t))) out.push(i);
    }
    return out;
  }

  /** Producer and consumers of every tensor (by name), from the layer details. */
  tensorMap() {
    if (!this.tensors) {
      const D = this.detailsJSON();
      const names = D.tensors.name;
      const producer = new Map();
      const consumers = new Map();
      for (let i = 0; i < this.n; i++) {
        for (const t of D.outputs[i]) if (!producer.has(names[t])) producer.set(names[t], i);
        for (const t of D.inputs[i]) {
          const list = consumers.get(names[t]);
          if (list) list.push(i); else consumers.set(names[t], [i]);
        }
      }
      this.tensors = { producer, consumers };
    }
    return this.tensors;
  }

  /** The roofline entry of a row, if it has one. @param {number} row */
  roofline(row) {
    if (!this.rooflineRow) {
      const map = this.rooflineRow = new Map();
      this.R.row.forEach((r, j) => map.set(r, j));
    }
    return this.rooflineRow.get(row);
  }

  /** Every linter finding, decoded. @returns {Finding[]} */
  lint() {
    if (!this.findingList) {
      const F = this.d.lint.rows;
      const T = F.texts;
      const L = this.L;
      this.findingList = F.row.map((row, j) => /** @type {Finding} */ ([
        row, F.layer[j] != null ? F.layer[j] : (row != null ? L.name[row] : ''),
        T[F.linter[j]], T[F.severity[j]], T[F.hazard[j]], T[F.evidence[j]], T[F.mitigation[j]], T[F.help[j]]]));
    }
    return this.findingList;
  }

  /** Indices (into lint()) of the findings about a row. @param {number} row @returns {number[]} */
  findings(row) {
    if (!this.lintRows) {
      const map = this.lintRows = new Map();
      this.d.lint.rows.row.forEach((r, j) => {
        if (r == null) return;
        const list = map.get(r);
        if (list) list.push(j); else map.set(r, [j]);
      });
    }
    return this.lintRows.get(row) || [];
  }

  /** @param {number} row */
  slowestRank(row) {
    const v = this.L.avg[row];
    if (!isNum(v)) return null;
    let rank = 1;
    for (const x of this.L.avg) if (isNum(x) && x > v) rank++;
    return rank;
  }
}

const engines = DATA.engines.map((d, k) => new Engine(k, d));
const app = {
  k: 0,
  tab: 'overview',
  selected: -1,
  /** @type {Object<string, string>} */
  built: {},
  /** @type {Explorer|null} */
  explorer: null,
  hashLock: false,
};

function eng() { return engines[app.k]; }
