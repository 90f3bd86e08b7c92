/** Promises over IndexedDB's callbacks, shared by the browser's file store and its shared store. */

/** Resolves with the request's result, or rejects with its error. */
export function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Resolves when the transaction commits; rejects when it aborts or fails. */
export function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error ?? new Error('[store] IndexedDB transaction aborted'));
    tx.onerror = () => reject(tx.error);
  });
}
