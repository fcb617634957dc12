// pprof_totals.js FILE - decode a gzipped pprof profile with the npm
// pprof-format package (the decoder Datadog's and Node's profilers use) and
// print what t3200 compares: per sample type "total TYPE/UNIT SUM", the
// distinct labels "label KEY=VALUE", the mappings "mapping FILE BUILD_ID".
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
const str = (i) => p.stringTable.strings[Number(i)];
const totals = p.sampleType.map(() => 0n);
const labels = new Set();

for (const s of p.sample) {
	s.value.forEach((v, i) => { totals[i] += BigInt(v); });
	for (const l of s.label)
		labels.add(`${str(l.key)}=${Number(l.str) ? str(l.str) : BigInt(l.num)}`);
}
p.sampleType.forEach((t, i) => console.log(`total ${str(t.type)}/${str(t.unit)} ${totals[i]}`));
[...labels].sort().forEach((l) => console.log(`label ${l}`));
for (const m of p.mapping)
	console.log(`mapping ${str(m.filename)} ${str(m.buildId) || '-'}`);
