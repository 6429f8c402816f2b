/**
 * SQLite WebhookOutbox: pending webhook deliveries in the embedded database, so a delivery owed
 * before a restart (a receiver that was down) is sent after it. A claim is one transaction that
 * selects the due deliveries and moves them a lease ahead, so two processes on the same file
 * never claim the same one.
 */
import type { WebhookDelivery, WebhookOutbox } from '../../core/ports/index.js';
import type { SqliteConnection } from '../sqlite/database.js';
import { preparedRunner, type SqliteStoreOptions, sqliteHandle } from '../sqlite/handle.js';
import { assertStorableDelivery, checkClaim, duplicateDeliveryError } from './delivery-rules.js';

const ADAPTER = 'createSqliteOutbox';

export type SqliteOutboxOptions = SqliteStoreOptions;

export function createSqliteOutbox(options: SqliteOutboxOptions): WebhookOutbox & { close(): Promise<void> } {
  const handle = sqliteHandle(ADAPTER, options);
  const statements = (db: SqliteConnection) => {
    const due = db.prepare(
      'SELECT record, id FROM webhook_deliveries WHERE due_at <= ? ORDER BY due_at, id LIMIT ?',
    );
    const lease = db.prepare('UPDATE webhook_deliveries SET due_at = ? WHERE id = ?');
    return {
      insert: db.prepare(
        'INSERT INTO webhook_deliveries (id, due_at, record) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
      ),
      claim: db.transaction((now: number, leaseUntil: number, limit: number) => {
        const rows = due.all(now, limit) as { record: string; id: string }[];
        for (const row of rows) lease.run(leaseUntil, row.id);
        return rows.map((row) => ({ ...(JSON.parse(row.record) as WebhookDelivery), dueAt: leaseUntil }));
      }),
      reschedule: db.prepare('UPDATE webhook_deliveries SET due_at = ?, record = ? WHERE id = ?'),
      remove: db.prepare('DELETE FROM webhook_deliveries WHERE id = ?'),
    };
  };
  const run = preparedRunner(handle, 'durable', statements);

  return {
    add: (delivery) =>
      run((s) => {
        assertStorableDelivery(delivery);
        if (s.insert.run(delivery.id, Math.ceil(delivery.dueAt), JSON.stringify(delivery)).changes === 0) {
          throw duplicateDeliveryError(delivery.id);
        }
      }),
    claimDue: (now, leaseMs, limit) =>
      run((s) => {
        checkClaim(now, leaseMs, limit);
        // .immediate(): the claim's read and its lease are one write transaction, so a second
        // process claiming at the same moment waits and then sees the new due times.
        // Whole milliseconds: the column is an INTEGER (instants may come with fractions).
        return s.claim.immediate(now, Math.ceil(now + leaseMs), limit);
      }),
    reschedule: (delivery) =>
      run((s) => {
        assertStorableDelivery(delivery);
        s.reschedule.run(Math.ceil(delivery.dueAt), JSON.stringify(delivery), delivery.id);
      }),
    remove: (id) =>
      run((s) => {
        s.remove.run(id);
      }),
    close: () => handle.close(),
  };
}
