import { type ConfigFactory, type ConfigFactoryKeyHost, registerAs } from '@nestjs/config';
import type { ClassConstructor } from 'class-transformer';
import { featureEnvironment, type RawEnv } from './feature-environment';
import { buildSharedConfig, type SharedConfig, SharedEnvironment } from './shared.config';

/** What a module states about its configuration, in its own `<module>.config.ts`. */
export interface SliceDefinition<E extends object, T> {
  /** The namespace: its injection token is `CONFIGURATION(<name>)`, unique in the app. */
  name: string;
  /** The variables the slice reads, as a validated class (see feature-environment.ts). */
  environment: ClassConstructor<E>;
  /**
   * The slice from its validated variables; `shared` is the shared slice, for a default derived
   * from a value several modules need (its development secrets are not resolved yet here).
   */
  build: (env: E, shared: SharedConfig) => T;
}

/**
 * A module's configuration slice: a `registerAs` namespace (so `@Inject(slice.KEY)` with
 * `ConfigType<typeof slice>` works) that also carries its definition. Called alone, it builds
 * from process.env; in the app, `ConfigSliceModule` gives every slice its value from one load.
 */
export type ConfigSlice<T extends object> = ConfigFactory<T> &
  ConfigFactoryKeyHost<T> & { readonly definition: SliceDefinition<any, T> };

/** Every slice defined so far, in definition order: what the app validates and loads at boot. */
const SLICES = new Map<string, SliceDefinition<any, any>>();

/**
 * Defines (and registers) a module's slice. Importing the `*.config.ts` that calls this is what
 * puts its variables into the boot validation, so a module that AppModule imports is always
 * covered. Two slices may not share a name.
 */
export function defineConfigSlice<E extends object, T extends object>(
  definition: SliceDefinition<E, T>,
): ConfigSlice<T> {
  const known = SLICES.get(definition.name);
  if (known && known !== definition)
    throw new Error(`Two configuration slices are named "${definition.name}"`);
  SLICES.set(definition.name, definition);
  const alone = (): T =>
    definition.build(
      featureEnvironment(definition.environment),
      buildSharedConfig(featureEnvironment(SharedEnvironment)),
    );
  return Object.assign(registerAs(definition.name, alone), { definition });
}

/** The registered slices (the shared one is built by the loader itself). */
export function registeredSlices(): SliceDefinition<any, any>[] {
  return [...SLICES.values()];
}

/** `featureEnvironment`'s raw variables type, re-exported for slice files. */
export type { RawEnv };
