/**
 * The provider families whose signed or server-side state (reasoning signatures, encrypted
 * reasoning, provider-executed tool blocks) only their own API reads back. A target profile
 * lists the families it keeps (`keepsArtifactsOf`); the others' state is removed or turned
 * into text (foreign-artifacts.ts).
 */
export type ArtifactFamily = 'anthropic' | 'bedrock' | 'gemini' | 'responses' | 'openrouter';

/** Every family (the `'any'` target keeps them all: its output does not change). */
export const ARTIFACT_FAMILIES: readonly ArtifactFamily[] = Object.freeze(['anthropic', 'bedrock', 'gemini', 'responses', 'openrouter']);
