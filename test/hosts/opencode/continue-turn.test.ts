import { describe, expect, it } from "vitest";
import { rewriteContinueText } from "../../../src/hosts/opencode/continue-turn.js";
import { CONTINUE_TEXT } from "../../../src/hosts/opencode/facts.js";

describe("rewriteContinueText", () => {
  it("replaces opencode's continue text and keeps what came before it", () => {
    expect(rewriteContinueText(CONTINUE_TEXT, "NOTE")).toBe("NOTE");
    expect(rewriteContinueText(`Media were removed.\n\n${CONTINUE_TEXT}`, "NOTE")).toBe("Media were removed.\n\nNOTE");
  });

  it("leaves any other text alone (another wording, or already rewritten)", () => {
    expect(rewriteContinueText("Continue if you have next steps.", "NOTE")).toBeNull();
    expect(rewriteContinueText("NOTE", "NOTE")).toBeNull();
  });
});
