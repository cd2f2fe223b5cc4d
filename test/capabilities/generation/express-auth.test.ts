// node-express-boilerplate authenticates its resource routes (`auth('manageUsers')` in src/routes/v1/user.route.js): a new
// resource's routes are authenticated too, not left open beside them.
import { afterAll, describe, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { unpackCorpus, type CorpusCopy } from '../../support/corpus.js';

const copies: CorpusCopy[] = [];
afterAll(() => {
  for (const copy of copies) copy.dispose();
});

describe('an endpoint in an Express project whose routes authenticate', () => {
  it('requires the project\'s auth middleware on the new route, and the plan says so', async () => {
    const copy = unpackCorpus('node-express-boilerplate');
    copies.push(copy);
    const context = (await analyzeProject({ cwd: copy.root })).context;
    const first = await generateFromTask('add a products endpoint with fields name and price', { cwd: copy.root, context });
    const route = first.steps.find((step) => step.path === 'src/routes/v1/product.route.js');
    expect(route?.content).toContain("const auth = require('../../middlewares/auth');");
    expect(route?.content).toMatch(/\.post\(auth\(\), validate\(productValidation\.createProduct\), productController\.createProduct\)/);
    expect(route?.summary).toMatch(/^POST \/products: authenticated \(auth\(\), as the project's other routes\), validated, then productController\.createProduct$/);
  });
});
