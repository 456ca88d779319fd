// Part 2 of the generated fault matrix's budget in `npm run test:faults` (its files run side by
// side): the matrix is test/faults/generated.test.cts, which reads its part from this file's name.
// Not a *.test.cts file: `npm test` runs the matrix's few cases in generated.test.cts alone.
import './generated.test.cjs';
