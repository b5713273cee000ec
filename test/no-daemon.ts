/**
 * The suite runs the CLI as it answers by itself: a command that reads the store neither asks a
 * server nor starts a resident one (src/client/daemon.ts), so no test leaves a server behind and
 * each command's own path is what is tested. Imported first by the helpers every CLI test uses;
 * children inherit it. Tests of the resident server take it out of their children's environment.
 */
process.env.WEAVE_NO_DAEMON ??= '1';
