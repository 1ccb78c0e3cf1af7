// @ts-check
/* GraphLegend: what the graph's colours mean, in a bar between the graph's toolbar and the
 * drawing (outside it, so it never covers a node). It folds to its toggle; an entry is a button
 * that filters the table by its type or precision (the graph then dims the other layers). */

class GraphLegend {
  /**
   * @param {Engine} engine
   * @param {(by: string, key: string) => void} [onPick] an entry clicked (colouring, key)
   */
  constructor(engine, onPick) {
    this.e = engine;
    this.g = engine.d.graph;
    this.onPick = onPick;
    this.folded = false;
    this.colorBy = 'type';
    this.box = h('div', { class: 'graph-legend', id: 'graph-legend' });
  }

  /** Draw the legend of a colouring: 'type', 'precision' or 'latency'. @param {string} colorBy */
  render(colorBy) {
    this.colorBy = colorBy;
    const box = clear(this.box);
    const toggle = h('button', { class: 'link legend-toggle', text: this.folded ? 'Legend \u25b8' : 'Legend \u25be', title: 'Show or hide the legend', 'aria-expanded': this.folded ? 'false' : 'true' });
    toggle.addEventListener('click', () => { this.folded = !this.folded; this.render(this.colorBy); });
    box.append(toggle);
    box.classList.toggle('folded', this.folded);
    if (this.folded) return;
    if (colorBy === 'latency') {
      const grad = h('span', { class: 'grad' });
      grad.style.background = `linear-gradient(to right, ${COLORS.latency.join(',')})`;
      const max = Math.max(0, ...this.e.L.avg.filter(isNum));
      append(box, [h('div', { class: 'legend-entry' }, ['Latency (square-root scale): 0 ', grad, ` ${fmtMs(max)} ms`])]);
      return;
    }
    // the fills the layers are drawn with, each with its layer count
    const by = colorBy === 'type' ? 'type' : 'precision';
    const detailed = this.e.d.detailed;
    for (const [key, color, count] of this.g.legend[by]) {
      const label = by === 'precision' ? precisionText(key, detailed) : key;
      const entry = h('div', { class: 'legend-entry', 'data-key': key, title: `Show only ${label} layers in the table (and dim the others here)` }, [swatch(this.g.palette[color]), `${label} (${count})`]);
      if (this.onPick) {
        const onPick = this.onPick;
        entry.setAttribute('role', 'button');
        entry.setAttribute('tabindex', '0');
        entry.addEventListener('click', () => onPick(by, key));
        entry.addEventListener('keydown', ev => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); onPick(by, key); } });
      }
      box.append(entry);
    }
  }
}
