/*
 * Site search from file:// (trex's docs, written for this site; loaded by docs/hooks/offline_search.py).
 *
 * Browsers refuse `new Worker(url)` for a page opened from file://, so Material's search worker
 * never starts and the search box stays on "Initializing search". Opened from file://, this
 * replaces `Worker` with a stand-in that runs the worker's script in a hidden frame of the page's
 * own document and passes messages both ways, asynchronously, as a worker would. Material's
 * offline plugin already gives the search index as a script (search/search_index.js), so no
 * request leaves the file system. Served over http(s), nothing changes.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:" || typeof window.EventTarget !== "function") return;

  class FileWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._queue = [];
      this._ready = false;
      const frame = document.createElement("iframe");
      frame.hidden = true;
      frame.setAttribute("aria-hidden", "true");
      frame.tabIndex = -1;
      frame.style.display = "none";
      (document.body || document.documentElement).appendChild(frame);
      this._frame = frame;
      const scope = frame.contentWindow;
      // The worker's globals: what it posts comes back here as a "message" event.
      scope.postMessage = (data) => setTimeout(() => this._emit("message", data), 0);
      scope.importScripts = () => {
        throw new Error("importScripts is not available to a worker opened from file://");
      };
      const script = scope.document.createElement("script");
      script.src = new URL(url, location.href).href;
      script.onload = () => {
        this._ready = true;
        for (const data of this._queue.splice(0)) this._deliver(data);
      };
      script.onerror = () => this._emit("error", new Error("cannot load " + script.src));
      scope.document.head.appendChild(script);
    }

    postMessage(data) {
      if (this._ready) this._deliver(data);
      else this._queue.push(data);
    }

    terminate() {
      this._ready = false;
      this._queue = [];
      this._frame.remove();
    }

    _deliver(data) {
      const scope = this._frame.contentWindow;
      setTimeout(() => scope.dispatchEvent(new scope.MessageEvent("message", { data: data })), 0);
    }

    _emit(type, data) {
      const event = type === "message" ? new MessageEvent("message", { data: data })
        : new ErrorEvent("error", { error: data, message: String(data) });
      const handler = type === "message" ? this.onmessage : this.onerror;
      if (typeof handler === "function") handler.call(this, event);
      this.dispatchEvent(event);
    }
  }

  window.Worker = FileWorker;
})();
