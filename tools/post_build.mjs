// Trunk's post-build hook (Trunk.toml), one script so that its steps, which all rewrite
// index.html, run in order (Trunk runs a stage's hooks at the same time): the JS glue minified,
// then the default page rendered into index.html.
import { minifyJs } from './minify_js.mjs';
import { prerender } from './prerender.mjs';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('tools/post_build.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
await minifyJs(dir);
await prerender(dir);
