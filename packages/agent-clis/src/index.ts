export {
  type AgentCli,
  type AgentCliId,
  type AgentFront,
  type AgentInvocation,
  agentCli,
  agentClis,
} from "./agent-clis.ts"
export {
  agentsPrefix,
  answering,
  type BackgroundProgram,
  type CliResult,
  freePort,
  installAgentCli,
  isInstalled,
  type ProgramEnd,
  runCli,
  spawnQuiet,
} from "./processes.ts"
export { afterToolResult, offersTools } from "./scripted.ts"
