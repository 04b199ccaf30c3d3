/** Options shared by several commands, so each is spelled, parsed and described once. */
import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { uuid } from '../options.js';

export const tenantIdOption = () =>
  new Option('--tenant <tenant_id>', 'id of the tenant (from bootstrap)')
    .argParser(uuid)
    .makeOptionMandatory();

export const userIdOption = () =>
  new Option('--user <user_id>', 'id of the user').argParser(uuid).makeOptionMandatory();

export const jsonOption = () => new Option('--json', 'print the result as JSON');

/** A help footer with worked examples, as `posture <command> --help` prints it. */
export const examples = (...lines: string[]) =>
  `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`;

/**
 * A group (`posture users`) run without a command, or with an unknown one, is a one-line usage
 * error like every other mistake (commander would print the whole help to stderr instead). Call it
 * after adding the group's commands: they copy the group's settings when created.
 */
export function requireSubcommand(group: Command): Command {
  const path = group.parent ? `posture ${group.name()}` : 'posture';
  return group.allowExcessArguments(true).action((_options: unknown, self: Command) => {
    const [given] = self.args;
    const known = self.commands.map((command) => command.name()).join(', ');
    throw new UsageError(
      given
        ? `unknown command '${given}' for '${path}' (expected one of: ${known})`
        : `missing command for '${path}' (expected one of: ${known}; see '${path} --help')`,
    );
  });
}
