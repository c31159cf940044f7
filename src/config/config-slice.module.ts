import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import type { LoadedConfig } from './app.config';
import type { ConfigSlice } from './config-slice';
import type { RawEnv } from './feature-environment';
import { loadConfig } from './load-config';

/** Token of one app's loaded configuration: every slice, by name. */
const LOADED_CONFIG = 'CONFIGURATION(*loaded*)';

/**
 * How slices reach the modules. AppModule's `forRoot` loads every registered slice once per app
 * (validated together, every error in one message, development secrets resolved); each module
 * imports `forFeature(itsSlice)` and injects it with `@Inject(slice.KEY)`. Nest's own
 * `ConfigModule.forFeature` calls a slice's factory without arguments, so it could neither see
 * the variables a test passes to `AppModule.forRoot` nor report every module's errors at once.
 */
@Module({})
export class ConfigSliceModule {
  /**
   * The global ConfigModule of an app whose raw variables are `raw()` (read when the first
   * slice is built, after `.env` is applied). `ConfigService` holds every slice by name, and the
   * `app` and `shared` slices are injectable in every module.
   */
  static forRoot(raw: () => RawEnv, options: { ignoreEnvFile: boolean }): Promise<DynamicModule> {
    let config: LoadedConfig | undefined;
    const loaded = () => (config ??= loadConfig(raw()));
    // A KEY without a namespace: ConfigService merges the whole object at its top level.
    const all = Object.assign(() => loaded(), { KEY: LOADED_CONFIG });
    return ConfigModule.forRoot({
      isGlobal: true,
      cache: true,
      ignoreEnvFile: options.ignoreEnvFile,
      load: [
        all,
        registerAs('app', () => loaded().app),
        registerAs('shared', () => loaded().shared),
      ],
    });
  }

  /** The given slices of the app's load, injectable in the importing module by their KEY. */
  static forFeature(...slices: ConfigSlice<any>[]): DynamicModule {
    const providers = slices.map((slice) => ({
      provide: slice.KEY,
      useFactory: (config: LoadedConfig): object => config[slice.definition.name],
      inject: [LOADED_CONFIG],
    }));
    return {
      module: ConfigSliceModule,
      providers,
      exports: providers.map((p) => p.provide),
    };
  }
}
