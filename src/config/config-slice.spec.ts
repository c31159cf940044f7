import { Inject, Injectable, Module } from '@nestjs/common';
import { ConfigService, type ConfigType } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { buildConfig, sliceOf } from './app.config';
import { appSettingsConfig } from './app-settings.config';
import { defineConfigSlice } from './config-slice';
import { ConfigSliceModule } from './config-slice.module';
import { toInt } from './feature-environment';
import { sharedConfig } from './shared.config';

/** Two modules' slices, defined as a module defines its own. */
class WidgetsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) WIDGET_LIMIT?: number;
}
const widgetsConfig = defineConfigSlice({
  name: 'widgets',
  environment: WidgetsEnvironment,
  build: (env, shared) => ({ limit: env.WIDGET_LIMIT ?? 3, perUsd: shared.creditsPerUsd }),
});
class GadgetsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) GADGET_COUNT?: number;
  // The same rule as the shared slice's: a variable two classes read is reported once.
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) CREDITS_PER_USD?: number;
}
const gadgetsConfig = defineConfigSlice({
  name: 'gadgets',
  environment: GadgetsEnvironment,
  build: (env) => ({ count: env.GADGET_COUNT ?? 0 }),
});

@Injectable()
class Widgets {
  constructor(
    @Inject(widgetsConfig.KEY) readonly settings: ConfigType<typeof widgetsConfig>,
    @Inject(sharedConfig.KEY) readonly shared: ConfigType<typeof sharedConfig>,
    @Inject(appSettingsConfig.KEY) readonly app: ConfigType<typeof appSettingsConfig>,
  ) {}
}
@Module({ imports: [ConfigSliceModule.forFeature(widgetsConfig)], providers: [Widgets] })
class WidgetsModule {}

/** Resolved secrets, so loading writes no development secret files. */
const secrets = {
  AUTH_SECRET: 'n'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 2).toString('base64'),
};

const error = (raw: Record<string, string>): string => {
  try {
    buildConfig(raw);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe('configuration slices', () => {
  it("gives each module its slice of the app's one load, and ConfigService every slice", async () => {
    const raw = { ...secrets, PORT: '4321', WIDGET_LIMIT: '7', CREDITS_PER_USD: '50' };
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigSliceModule.forRoot(() => raw, { ignoreEnvFile: true }), WidgetsModule],
    }).compile();
    const widgets = moduleRef.get(Widgets);
    expect(widgets.settings).toEqual({ limit: 7, perUsd: 50 });
    expect(widgets.app.port).toBe(4321);
    expect(widgets.shared.authSecret).toBe(secrets.AUTH_SECRET);
    // The module's view and ConfigService's are the same objects.
    const config = moduleRef.get(ConfigService);
    expect(config.get('widgets')).toBe(widgets.settings);
    expect(config.get('app')).toBe(widgets.app);
    expect(config.get('gadgets')).toEqual({ count: 0 });
    await moduleRef.close();
  });

  it('keeps a slice out of the modules that do not import it', async () => {
    @Injectable()
    class Outsider {
      constructor(@Inject(widgetsConfig.KEY) readonly settings: unknown) {}
    }
    const compiling = Test.createTestingModule({
      imports: [ConfigSliceModule.forRoot(() => secrets, { ignoreEnvFile: true })],
      providers: [Outsider],
    }).compile();
    await expect(compiling).rejects.toThrow(/CONFIGURATION\(widgets\)/);
  });

  it('names the wrong variables of every slice in one message, each once, one per line', () => {
    const message = error({ PORT: 'not-a-port', WIDGET_LIMIT: '0', CREDITS_PER_USD: '0' });
    const lines = message.split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines).toHaveLength(4);
    for (const name of ['PORT', 'WIDGET_LIMIT', 'CREDITS_PER_USD'])
      expect(lines.filter((l) => l.startsWith(`  ${name}: `))).toHaveLength(1);
  });

  it('lets a slice be built alone from process.env, and read from a loaded configuration', () => {
    expect(widgetsConfig()).toEqual(sliceOf(buildConfig(process.env), widgetsConfig));
    expect(sliceOf(buildConfig({ GADGET_COUNT: '2' }), gadgetsConfig)).toEqual({ count: 2 });
  });

  it('refuses a second slice of the same name', () => {
    expect(() =>
      defineConfigSlice({ name: 'widgets', environment: WidgetsEnvironment, build: () => ({}) }),
    ).toThrow('Two configuration slices are named "widgets"');
  });
});
