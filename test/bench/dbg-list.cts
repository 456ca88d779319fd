import '../harness/env.cjs';
import { benchListing } from '../bench/rows.cjs';
void (async () => { const r = await benchListing({ timeScale: 0.05, n: 5000, trials: Number(process.env.T ?? 9) }); console.log(JSON.stringify(r)); process.exit(0); })();
