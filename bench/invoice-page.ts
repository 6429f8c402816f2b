/**
 * The page the Chromium benchmark prints: an invoice as a backend renders one from a template,
 * with a flexbox letterhead, a grid of addresses, an inline SVG logo, a striped table of line
 * items with a repeating header, totals and terms, laid out by print CSS on two A4 pages. Self-
 * contained (no fonts, images or styles to fetch), so every contender does the same work.
 */

const PRODUCTS = [
  'Consulting, senior engineer (hours)',
  'Hosting, dedicated server, monthly',
  'Support plan, business hours',
  'Licence, document converter, per seat',
  'Training workshop, half day',
  'Storage, 1 TB object storage, monthly',
  'Design review and accessibility audit',
  'Travel expenses, flat rate',
];

/** The invoice's HTML; `items` line items (default 30, two A4 pages). */
export function invoicePage(items = 30): string {
  let net = 0;
  const rows = Array.from({ length: items }, (_, i) => {
    const quantity = (i % 7) + 1;
    const price = 35 + ((i * 37) % 400) + 0.5 * (i % 2);
    const amount = quantity * price;
    net += amount;
    return `<tr><td>${i + 1}</td><td>${PRODUCTS[i % PRODUCTS.length]}<div class="note">Period 2025-${String((i % 12) + 1).padStart(2, '0')}, reference PRJ-${4100 + i}</div></td><td class="num">${quantity}</td><td class="num">${price.toFixed(2)}</td><td class="num">19%</td><td class="num">${amount.toFixed(2)}</td></tr>`;
  }).join('\n');
  const tax = net * 0.19;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice INV-2025-0042</title>
<style>
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
* { box-sizing: border-box; }
body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 10pt; color: #222; margin: 0; }
header { display: flex; justify-content: space-between; align-items: flex-start; border-bottom: 3px solid #1f5fa8; padding-bottom: 8mm; }
header .brand { display: flex; gap: 4mm; align-items: center; }
header h1 { font-size: 22pt; margin: 0; color: #1f5fa8; letter-spacing: 0.05em; }
header .meta { text-align: right; line-height: 1.5; }
.addresses { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 6mm; margin: 8mm 0; }
.addresses h2 { font-size: 8pt; text-transform: uppercase; color: #777; margin: 0 0 2mm; }
.addresses address { font-style: normal; line-height: 1.45; }
table { width: 100%; border-collapse: collapse; }
thead { display: table-header-group; }
th { background: #1f5fa8; color: #fff; text-align: left; padding: 2mm; font-weight: 600; }
td { padding: 1.8mm 2mm; border-bottom: 1px solid #dde3ea; vertical-align: top; }
tr { break-inside: avoid; }
tbody tr:nth-child(even) { background: #f3f6fa; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.note { color: #777; font-size: 8pt; }
.totals { display: flex; justify-content: flex-end; margin-top: 6mm; break-inside: avoid; }
.totals dl { display: grid; grid-template-columns: auto 32mm; gap: 1.5mm 6mm; margin: 0; }
.totals dt { color: #555; } .totals dd { margin: 0; text-align: right; }
.totals .grand { font-weight: 700; font-size: 12pt; border-top: 2px solid #222; padding-top: 1.5mm; }
footer { margin-top: 10mm; padding-top: 4mm; border-top: 1px solid #ccc; color: #555; font-size: 8pt; columns: 2; column-gap: 8mm; }
</style></head>
<body>
<header>
  <div class="brand">
    <svg width="48" height="48" viewBox="0 0 48 48"><rect width="48" height="48" rx="10" fill="#1f5fa8"/><path d="M12 34 L24 12 L36 34 Z" fill="#fff"/></svg>
    <div><h1>INVOICE</h1><div>Northwind Document Services GmbH</div></div>
  </div>
  <div class="meta">No. <strong>INV-2025-0042</strong><br>Date 2025-03-31<br>Due 2025-04-30<br>Customer ID C-18823</div>
</header>
<section class="addresses">
  <div><h2>From</h2><address>Northwind Document Services GmbH<br>Hafenstrasse 12<br>20457 Hamburg<br>Germany</address></div>
  <div><h2>Bill to</h2><address>Contoso Logistics Ltd.<br>Accounts Payable<br>18 Wharf Road<br>London N1 7GR<br>United Kingdom</address></div>
  <div><h2>Payment</h2><address>IBAN DE89 3704 0044 0532 0130 00<br>BIC COBADEFFXXX<br>VAT ID DE123456789</address></div>
</section>
<table>
<thead><tr><th>#</th><th>Description</th><th class="num">Qty</th><th class="num">Unit price</th><th class="num">VAT</th><th class="num">Amount (EUR)</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<div class="totals"><dl>
  <dt>Net</dt><dd>${net.toFixed(2)}</dd>
  <dt>VAT 19%</dt><dd>${tax.toFixed(2)}</dd>
  <dt class="grand">Total due</dt><dd class="grand">${(net + tax).toFixed(2)}</dd>
</dl></div>
<footer>
  <p>Payment within 30 days of the invoice date without deduction. Please quote the invoice number with your payment.</p>
  <p>Northwind Document Services GmbH, registered at Amtsgericht Hamburg HRB 123456; managing director J. Doe.</p>
  <p>Questions about this invoice: billing@northwind.example, +49 40 1234567.</p>
</footer>
</body></html>
`;
}
